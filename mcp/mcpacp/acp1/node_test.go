package acp1_test

import (
	"path/filepath"
	"testing"

	"github.com/acpgen/acpgen/mcp/internal/mcptest"
)

// interopDir is the repository's interop/ folder, where the pinned
// TypeScript SDKs are installed (npm ci --prefix interop).
var interopDir = filepath.Join("..", "..", "..", "interop")

func startNode(t *testing.T, script string, args ...string) *mcptest.Node {
	t.Helper()
	return mcptest.StartNode(t, interopDir, script, args...)
}
