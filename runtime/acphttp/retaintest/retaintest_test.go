package retaintest_test

import (
	"testing"

	"github.com/acpgen/acpgen/runtime/acphttp"
	"github.com/acpgen/acpgen/runtime/acphttp/retaintest"
)

func TestMemoryRetention(t *testing.T) {
	retaintest.Run(t, func(*testing.T) acphttp.Retention { return acphttp.MemoryRetention{} })
}
