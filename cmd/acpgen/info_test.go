package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator/config"
)

// TestHintsNameTheCommandAsRun: a hint in an error names acpgen the way it
// is run from the current folder.
func TestHintsNameTheCommandAsRun(t *testing.T) {
	tool := t.TempDir()
	os.WriteFile(filepath.Join(tool, "go.mod"), []byte("module example.com/x\n\ngo 1.26\n\ntool (\n\texample.com/other\n\tgithub.com/acpgen/acpgen/cmd/acpgen\n)\n"), 0o644)
	commented := t.TempDir()
	os.WriteFile(filepath.Join(commented, "go.mod"), []byte("module example.com/c\n\ngo 1.26\n\ntool (\n\tgithub.com/acpgen/acpgen/cmd/acpgen // generates ./acp\n)\n"), 0o644)
	quoted := t.TempDir()
	os.WriteFile(filepath.Join(quoted, "go.mod"), []byte("module example.com/q\n\ngo 1.26\n\ntool \"github.com/acpgen/acpgen/cmd/acpgen\"\n"), 0o644)
	plain := t.TempDir()
	os.WriteFile(filepath.Join(plain, "go.mod"), []byte("module example.com/y\n\ngo 1.26\n\n// tool github.com/acpgen/acpgen/cmd/acpgen\n"), 0o644)
	repo, _ := filepath.Abs(filepath.Join("..", ".."))
	for dir, want := range map[string]string{
		tool:                            "run `go tool acpgen init`",
		filepath.Join(tool, "sub"):      "run `go tool acpgen init`",
		commented:                       "run `go tool acpgen init`",
		quoted:                          "run `go tool acpgen init`",
		plain:                           "run `acpgen init`",
		repo:                            "run `go run ./cmd/acpgen init`",
		filepath.Join(repo, "examples"): "run `go run ./cmd/acpgen init`",
	} {
		os.MkdirAll(dir, 0o755)
		t.Chdir(dir)
		if got := errorText(config.ErrNoConfig); !strings.Contains(got, want) {
			t.Errorf("in %s: %q lacks %q", dir, got, want)
		}
	}
}

func TestVersionCommand(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	out, err := run(t, "version")
	if err != nil {
		t.Fatal(err)
	}
	// A test binary is built inside acpgen's checkout: no module version.
	mustContain(t, out, "acpgen (devel) go1.", "schema @agentclientprotocol/sdk@2.4.0 ("+filepath.Join("schema", "lock.json")+", sha512-")
	out2, err := run(t, "--version")
	if err != nil || out2 != out {
		t.Errorf("--version printed %q (%v), want the same as version", out2, err)
	}
}
