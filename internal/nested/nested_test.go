package nested

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

// rootRequires returns the module paths the root go.mod requires.
func rootRequires(t *testing.T) []string {
	t.Helper()
	path := filepath.Join("..", "..", "go.mod")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse(path, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range f.Require {
		out = append(out, r.Mod.Path)
	}
	return out
}

// OpenTelemetry lives in the otel module.
func TestMainModuleRequiresNoOpenTelemetry(t *testing.T) {
	for _, p := range rootRequires(t) {
		if strings.HasPrefix(p, "go.opentelemetry.io/") {
			t.Errorf("go.mod requires %s; OpenTelemetry belongs in the otel module", p)
		}
	}
}

// The official MCP SDK lives in the mcp module (MCP over ACP).
func TestMainModuleRequiresNoMCPSDK(t *testing.T) {
	for _, p := range rootRequires(t) {
		if strings.HasPrefix(p, "github.com/modelcontextprotocol/") {
			t.Errorf("go.mod requires %s; the MCP SDK belongs in the mcp module", p)
		}
	}
}

// The mcp module is nested in this repository and builds on this checkout.
func TestMCPModuleReplacesRoot(t *testing.T) {
	path := filepath.Join("..", "..", "mcp", "go.mod")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse(path, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.Module.Mod.Path != "github.com/acpgen/acpgen/mcp" {
		t.Errorf("mcp/go.mod is module %s", f.Module.Mod.Path)
	}
	ok := false
	for _, r := range f.Replace {
		ok = ok || (r.Old.Path == "github.com/acpgen/acpgen" && r.New.Path == "..")
	}
	if !ok {
		t.Error("mcp/go.mod does not replace github.com/acpgen/acpgen with ..")
	}
}

// SQL drivers live in the store module: acpgen's go.mod requires none, and
// no package of acpgen's module links one (a driver implements
// database/sql/driver), so an agent on acpgen pulls one only by importing
// the store module.
func TestMainModuleRequiresNoSQLDriver(t *testing.T) {
	drivers := []string{"modernc.org/sqlite", "github.com/jackc/pgx", "github.com/lib/pq", "github.com/mattn/go-sqlite3",
		"github.com/ncruces/go-sqlite3", "zombiezen.com/go/sqlite", "crawshaw.io/sqlite", "github.com/go-sql-driver/mysql"}
	for _, p := range rootRequires(t) {
		for _, d := range drivers {
			if p == d || strings.HasPrefix(p, d+"/") {
				t.Errorf("go.mod requires %s; SQL drivers belong in the store module", p)
			}
		}
	}
	out, err := exec.Command("go", "list", "-deps", "github.com/acpgen/acpgen/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "database/sql/driver" {
			t.Error("a package of acpgen's module depends on database/sql/driver (go list -deps): SQL drivers belong in the store module")
		}
	}
}
