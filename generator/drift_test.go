package generator_test

import (
	"os"
	"testing"

	"github.com/acpgen/acpgen/generator"
	"github.com/acpgen/acpgen/generator/config"
	"github.com/acpgen/acpgen/generator/output"
)

// repoConfig is the repository's own generation, as acpgen.json says.
func repoConfig(t *testing.T) *config.Resolved {
	t.Helper()
	t.Chdir("..") // the repository root
	r, err := config.Setup(t.Context(), "", config.Overrides{}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestGeneratedUpToDate regenerates the repository's output in memory and
// requires the committed files to be identical.
func TestGeneratedUpToDate(t *testing.T) {
	r := repoConfig(t)
	files, err := r.Generate()
	if err != nil {
		t.Fatal(err)
	}
	changes, err := output.Compare(r.Root, files, r.Config.Owned())
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
	cfg := repoConfig(t).Config
	a, err := generator.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := generator.Generate(cfg)
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
