package scaffold

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// requirementInReach reads how the module around a folder has acpgen.
func TestRequirementInReach(t *testing.T) {
	for _, tc := range []struct {
		name, gomod      string
		version, replace string // replace: "DIR/..." is relative to the module
	}{
		{"acpgen itself", "module " + generator.Module + "\n", "v0.0.0", "DIR"},
		{"required", "module m\n\nrequire " + generator.Module + " v1.2.3\n", "v1.2.3", ""},
		{"replaced by a folder", "module m\n\nrequire " + generator.Module + " v1.2.3\n\nreplace " + generator.Module + " => ../acpgen\n", "v1.2.3", "PARENT/acpgen"},
		{"replaced, not required", "module m\n\nreplace " + generator.Module + " => example.com/fork v1.0.0\n", "v0.0.0", "example.com/fork v1.0.0"},
		{"replace of another version", "module m\n\nrequire " + generator.Module + " v1.2.3\n\nreplace " + generator.Module + " v1.0.0 => ../acpgen\n", "v1.2.3", ""},
		{"neither", "module m\n", "", ""},
	} {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "go.mod"), tc.gomod)
		got := requirementInReach(filepath.Join(dir, "sub", "folder"))
		want := strings.NewReplacer("PARENT", filepath.Dir(dir), "DIR", dir).Replace(tc.replace)
		if got.Path != generator.Module || got.Version != tc.version || got.Replace != want {
			t.Errorf("%s: %+v, want version %q replace %q", tc.name, got, tc.version, want)
		}
	}
	if got := requirementInReach(t.TempDir()); got.Version != "" {
		t.Errorf("no module: %+v", got)
	}
}

// A binary's own install decides the requirement when no option does: its
// replacement folder, its version, else its checkout.
func TestInstallRequirement(t *testing.T) {
	cwd := t.TempDir()
	for _, tc := range []struct {
		in               Install
		version, replace string
	}{
		{Install{Version: "v1.0.0"}, "v1.0.0", ""},
		{Install{Replace: "/src/acpgen"}, "v0.0.0", "/src/acpgen"},
		{Install{Replace: "/src/my acpgen", Version: "v1.1.0"}, "v1.1.0", `"/src/my acpgen"`},
		{Install{Checkout: "/co"}, "v0.0.0", "/co"},
	} {
		req, err := acpgenRequirement(Options{Install: tc.in})
		if err != nil || req.Version != tc.version || req.Replace != tc.replace {
			t.Errorf("%+v: %+v, %v", tc.in, req, err)
		}
	}
	t.Chdir(cwd)
	if _, err := acpgenRequirement(Options{Install: Install{Replace: "../acpgen"}}); err == nil || !strings.Contains(err.Error(), "give --replace DIR") {
		t.Errorf("a relative replacement out of reach: %v", err)
	}
	req, err := acpgenRequirement(Options{Replace: "x", Install: Install{Version: "v9.0.0"}})
	if err != nil || req.Version != "v0.0.0" || req.Replace != filepath.Join(cwd, "x") {
		t.Errorf("--replace wins over the install: %+v, %v", req, err)
	}
}

// Write makes a module of its own outside any module, requiring acpgen as
// the install says, and refuses what it cannot write.
func TestWrite(t *testing.T) {
	t.Chdir(t.TempDir())
	st, err := Write(Options{Kind: "agent", Out: "my-agent", Install: Install{Version: "v1.4.0"}})
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join("my-agent", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"module my-agent\n", "go " + GoVersion, "require " + generator.Module + " v1.4.0"} {
		if !strings.Contains(string(mod), want) {
			t.Errorf("go.mod lacks %q:\n%s", want, mod)
		}
	}
	if st.Data.Import != DefaultImport || st.Parent != "" {
		t.Errorf("starter %+v", st)
	}
	var next strings.Builder
	st.PrintNextSteps(&next)
	if !strings.Contains(next.String(), "cd my-agent\n  go mod tidy\n") {
		t.Errorf("next steps:\n%s", next.String())
	}
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Kind: "agent", Out: "my-agent"}, "is not empty"},
		{Options{Kind: "proxy", Out: "c", HTTP: true}, "--http applies to agents and clients"},
		{Options{Kind: "agent", Out: "a b"}, "not a usable program name"},
		{Options{Kind: "agent", Out: "a", Import: "x", Unstable: true}, "give one or the other"},
		{Options{Kind: "agent", Out: "a", Module: "bad path!"}, "is not a module path"},
	} {
		if _, err := Write(tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.o, err, tc.want)
		}
	}
}

// A proxy starter builds on the unstable channel unless --import says
// otherwise, and a configuration without one is refused.
func TestWriteProxy(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	st, err := Write(Options{Kind: "proxy", Out: "p", Install: Install{Version: "v1.4.0"}})
	if err != nil {
		t.Fatal(err)
	}
	if st.Data.Import != DefaultImport+"/unstable" {
		t.Errorf("import %s", st.Data.Import)
	}
	var next strings.Builder
	st.PrintNextSteps(&next)
	if !strings.Contains(next.String(), "(.gitignore, proxy.go, proxy_test.go, go.mod, main.go)") || !strings.Contains(next.String(), "./bin/p -- AGENT [ARGS...]") ||
		!strings.Contains(next.String(), "acpgen conduct -- ./bin/p -component ::: AGENT [ARGS...]") {
		t.Errorf("next steps:\n%s", next.String())
	}
	if st, err := Write(Options{Kind: "proxy", Out: "q", Import: "example.com/acp"}); err != nil || st.Data.Import != "example.com/acp" {
		t.Errorf("--import: %+v, %v", st, err)
	}
	writeFile(t, filepath.Join(dir, "acpgen.json"), `{"channels": [{"name": "stable", "out": "acp"}]}`)
	// The refusal says both ways out, as they are typed.
	if _, err := Write(Options{Kind: "proxy", Out: "r"}); err == nil || !strings.Contains(err.Error(), "the proxy starter builds on an unstable channel") ||
		!strings.Contains(err.Error(), `add {"name": "unstable"} to its channels`) || !strings.Contains(err.Error(), "--import "+DefaultImport+"/unstable") {
		t.Errorf("a configuration without an unstable channel: %v", err)
	}
}
