package generator_test

import (
	"path/filepath"
	"testing"

	"github.com/acpgen/acpgen/generator"
	"github.com/acpgen/acpgen/generator/output"
)

// TestGeneratedUpToDate regenerates the repository's output in memory and
// requires the committed files to be identical.
func TestGeneratedUpToDate(t *testing.T) {
	t.Chdir(filepath.Join("..")) // the repository root
	cfg := generator.RepoConfig()
	files, err := generator.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	changes, err := output.Compare(".", files, cfg.Owned())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		diff := output.Unified(c)
		if len(diff) > 2000 {
			diff = diff[:2000] + "\n..."
		}
		t.Errorf("%s is %s; run: go run ./cmd/acpgen generate\n%s", c.Path, c.Kind, diff)
	}
}

// TestDeterministic requires two generations to be byte-identical.
func TestDeterministic(t *testing.T) {
	t.Chdir(filepath.Join(".."))
	a, err := generator.Generate(generator.RepoConfig())
	if err != nil {
		t.Fatal(err)
	}
	b, err := generator.Generate(generator.RepoConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) {
		t.Fatalf("%d files then %d", len(a), len(b))
	}
	for p := range a {
		if string(a[p]) != string(b[p]) {
			t.Errorf("%s differs between two runs", p)
		}
	}
}
