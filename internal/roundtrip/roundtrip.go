// Package roundtrip runs this repository's hand-written corpus
// (testdata/corpus) through a generated package's codecs: every message
// decodes in both modes and re-encodes to equal JSON, and every invalid
// shape fails decoding with an error naming the member. Unlike acpgentest's
// schema-derived suites, the corpus exists only in this repository, so the
// hand-written tests of gen/acp and gen/acp/unstable call this, not the
// generated ones.
package roundtrip

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/acpgentest"
	"github.com/acpgen/acpgen/internal/corpus"
	"github.com/acpgen/acpgen/internal/pinned"
	"github.com/acpgen/acpgen/runtime/wire"
)

// Corpus runs the corpus of one channel ("stable" or "unstable") through
// defs, the generated package's types by $defs name.
func Corpus(t *testing.T, channel string, defs map[string]acpgentest.Def) {
	dir := filepath.Join(pinned.Root(t), "testdata", "corpus")
	t.Run("messages", func(t *testing.T) {
		msgs, err := corpus.LoadMessages(filepath.Join(dir, channel))
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) == 0 {
			t.Fatal("empty corpus")
		}
		for _, m := range msgs {
			d, ok := defs[m.Def]
			if !ok {
				t.Errorf("%s: no generated type for %s", filepath.Base(m.File), m.Def)
				continue
			}
			acpgentest.CheckRoundTrip(t, d, filepath.Base(m.File), m.Payload)
		}
		t.Logf("%s: %d corpus messages round-tripped", channel, len(msgs))
	})
	t.Run("invalid shapes", func(t *testing.T) {
		cases, err := corpus.LoadInvalid(filepath.Join(dir, "invalid"))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, inv := range cases {
			d, ok := defs[inv.Def]
			if !ok {
				continue // a def only the other channel has
			}
			if inv.Stage != "decode" {
				continue // enforced by Validate, not by decoding
			}
			n++
			_, err := d.Codec(inv.JSON, wire.Strict)
			if err == nil {
				t.Errorf("%s: %s decoded without error", filepath.Base(inv.File), inv.Def)
				continue
			}
			if !strings.Contains(err.Error(), inv.ErrorContains) {
				t.Errorf("%s: error %q does not mention %q", filepath.Base(inv.File), err, inv.ErrorContains)
			}
		}
		if n == 0 {
			t.Fatal("no invalid case applies")
		}
	})
}
