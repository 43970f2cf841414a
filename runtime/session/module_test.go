package session_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

// SQL drivers live in the store module: acpgen's go.mod requires none, and
// no package of acpgen's module links one (a driver implements
// database/sql/driver), so an agent on acpgen pulls one only by importing
// the store module.
func TestMainModuleRequiresNoSQLDriver(t *testing.T) {
	path := filepath.Join("..", "..", "go.mod")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.Parse(path, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	drivers := []string{"modernc.org/sqlite", "github.com/jackc/pgx", "github.com/lib/pq", "github.com/mattn/go-sqlite3",
		"github.com/ncruces/go-sqlite3", "zombiezen.com/go/sqlite", "crawshaw.io/sqlite", "github.com/go-sql-driver/mysql"}
	for _, r := range f.Require {
		for _, d := range drivers {
			if r.Mod.Path == d || strings.HasPrefix(r.Mod.Path, d+"/") {
				t.Errorf("go.mod requires %s; SQL drivers belong in the store module", r.Mod.Path)
			}
		}
	}
	out, err := exec.Command("go", "list", "-deps", f.Module.Mod.Path+"/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "database/sql/driver" {
			t.Errorf("a package of %s depends on database/sql/driver (go list -deps): SQL drivers belong in the store module", f.Module.Mod.Path)
		}
	}
}
