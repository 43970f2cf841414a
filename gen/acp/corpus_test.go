package acp

// Hand-written: the repository's corpus through the generated codecs (defs,
// of the generated defs_test.go). The corpus is not derived from the schema,
// so the generated tests, which must run in any module, leave it out.

import (
	"testing"

	"github.com/acpgen/acpgen/internal/roundtrip"
)

func TestCorpus(t *testing.T) { roundtrip.Corpus(t, "stable", defs) }
