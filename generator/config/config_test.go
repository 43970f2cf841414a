package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator"
	"github.com/acpgen/acpgen/generator/source"
)

// TestRepoConfig: the repository's acpgen.json generates the v1 channels (with
// the RFD overlays) and the v2 draft's into gen/, writes the meta files into
// schema/, and pins the release `acpgen init` starts at.
func TestRepoConfig(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	r, err := Open("", Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	resumable := filepath.Join("overlays", "resumable-transport.json")
	rfds := []string{filepath.Join("overlays", "additional-directories.json"), filepath.Join("overlays", "runtime-context.json"), resumable}
	want := []generator.Channel{
		{Name: "stable", Protocol: 1, SchemaFile: "schema.json", MetaFile: "meta.json", OutDir: "gen/acp", Package: "acp",
			ImportPath: "github.com/acpgen/acpgen/gen/acp", Overlays: rfds},
		{Name: "unstable", Protocol: 1, SchemaFile: "schema.unstable.json", MetaFile: "meta.unstable.json", OutDir: "gen/acp/unstable", Package: "unstable",
			ImportPath: "github.com/acpgen/acpgen/gen/acp/unstable", Overlays: rfds},
		{Name: "v2", Protocol: 2, SchemaFile: "schema.v2.json", MetaFile: "meta.v2.json", OutDir: "gen/acp/v2", Package: "acp",
			ImportPath: "github.com/acpgen/acpgen/gen/acp/v2", Overlays: []string{resumable}},
		{Name: "v2-unstable", Protocol: 2, SchemaFile: "schema.v2.unstable.json", MetaFile: "meta.v2.unstable.json", OutDir: "gen/acp/v2/unstable", Package: "unstable",
			ImportPath: "github.com/acpgen/acpgen/gen/acp/v2/unstable", Overlays: []string{resumable}},
	}
	if !reflect.DeepEqual(r.Config.Channels, want) {
		t.Fatalf("channels\n%+v\nwant\n%+v", r.Config.Channels, want)
	}
	if r.Config.MetaDir != "schema" || !r.Config.StrictGates || r.LockPath() != filepath.Join("schema", "lock.json") {
		t.Fatalf("metaDir %q, strictGates %v, lock %s", r.Config.MetaDir, r.Config.StrictGates, r.LockPath())
	}
	lock, err := os.ReadFile(r.LockPath())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(lock), `"version": "`+r.Version+`"`) || r.Version != TestedVersion {
		t.Fatalf("acpgen.json schema.version %s, TestedVersion %s and schema/lock.json must agree", r.Version, TestedVersion)
	}
}

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestErrorsNameFileAndKey(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ text, want string }{
		{`{"chanels": []}`, `acpgen.json: chanels: unknown key`},
		{`{"schema": {"dir": "s", "versoin": "1"}}`, `acpgen.json: schema.versoin: unknown key`},
		{`{"channels": [{"name": "stable", "out": 3}]}`, `acpgen.json: channels[0].out: Invalid type. Expected: string, given: integer`},
		{`{"channels": [{"out": "x"}]}`, `acpgen.json: channels[0].name: required key is missing`},
		{`{"channels": [{"name": "beta"}]}`, `acpgen.json: channels[0].name: `},
		{`{"channels": [{"name": "stable", "package": "Acp"}]}`, `acpgen.json: channels[0].package: Does not match pattern`},
		{`{"channels": [{"name": "stable"}, {"name": "stable"}]}`, `acpgen.json: channels[1].name: channel "stable" is already configured at channels[0]`},
		{`{"channels": [{"name": "stable", "out": "../elsewhere"}]}`, `acpgen.json: channels[0].out: "../elsewhere": must be a clean path inside the output root`},
		{`{"descriptions": "yes"}`, `acpgen.json: descriptions: Invalid type. Expected: boolean`},
		{"{\n  \"schema\": {\n    \"dir\": \"x\",\n  }\n}", `acpgen.json: not valid JSON: line 4, column 3`},
	} {
		p := write(t, dir, "acpgen.json", c.text)
		_, err := Load(p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %q", c.text, err, c.want)
		}
		if err != nil && !strings.HasPrefix(err.Error(), p) {
			t.Errorf("%s: error does not start with the file name: %v", c.text, err)
		}
	}
}

func TestResolveDownstream(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "go.mod", "module example.com/down\n\ngo 1.26\n")
	p := write(t, dir, "sdk/acpgen.json", `{
  "schema": {"dir": "../schema"},
  "channels": [{"name": "stable", "out": "acp"}, {"name": "unstable", "out": "acp/unstable", "overlays": ["ov.json"]}]
}`)
	f, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Resolve(f, p, Overrides{Overlays: []string{"extra.json"}, Package: map[string]string{"stable": "acpsdk"}})
	if err != nil {
		t.Fatal(err)
	}
	sdk := filepath.Join(dir, "sdk")
	if r.Root != sdk || r.LockPath() != filepath.Join(dir, "schema", "lock.json") || r.Config.MetaDir != "" {
		t.Fatalf("root %s, lock %s, metaDir %q", r.Root, r.LockPath(), r.Config.MetaDir)
	}
	want := []generator.Channel{
		{Name: "stable", Protocol: 1, SchemaFile: "schema.json", MetaFile: "meta.json", OutDir: "acp", Package: "acpsdk",
			ImportPath: "example.com/down/sdk/acp", Overlays: []string{"extra.json"}},
		{Name: "unstable", Protocol: 1, SchemaFile: "schema.unstable.json", MetaFile: "meta.unstable.json", OutDir: "acp/unstable", Package: "unstable",
			ImportPath: "example.com/down/sdk/acp/unstable", Overlays: []string{filepath.Join(sdk, "ov.json"), "extra.json"}},
	}
	if !reflect.DeepEqual(r.Config.Channels, want) {
		t.Fatalf("got  %+v\nwant %+v", r.Config.Channels, want)
	}
	if r.Config.StrictGates {
		t.Fatal("strict gates without strictGates")
	}

	// Flags select channels and override folders; a flag naming a channel
	// that is not generated is an error.
	r, err = Resolve(f, p, Overrides{Channels: []string{"unstable"}, Out: map[string]string{"unstable": "u"}, Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Config.Channels) != 1 || r.Config.Channels[0].OutDir != "u" || r.Config.Channels[0].ImportPath != "example.com/down/u" {
		t.Fatalf("got %+v", r.Config.Channels)
	}
	if _, err := Resolve(f, p, Overrides{Channels: []string{"unstable"}, Out: map[string]string{"stable": "s"}}); err == nil || !strings.Contains(err.Error(), "--out stable") {
		t.Fatalf("got %v", err)
	}
	if _, err := Resolve(f, p, Overrides{Channels: []string{"v2"}}); err == nil || !strings.Contains(err.Error(), "--channel v2") {
		t.Fatalf("got %v", err)
	}

	// Without a go.mod an import path cannot be derived.
	bare := t.TempDir()
	p = write(t, bare, "acpgen.json", `{"channels": [{"name": "stable", "out": "acp"}]}`)
	f, _ = Load(p)
	r, err = Resolve(f, p, Overrides{})
	if err != nil {
		t.Fatal(err) // commands that emit no Go still work
	}
	if err := r.ImportPaths(); err == nil || !strings.Contains(err.Error(), p+": channels[0]: importPath is not set") {
		t.Fatalf("got %v", err)
	}
	if _, err := r.Generate(); err == nil || err.Error() != r.ImportPaths().Error() {
		t.Fatalf("generate without an import path: %v", err)
	}
}

func TestSetVersion(t *testing.T) {
	dir := t.TempDir()
	text := "{\n  \"schema\": {\"dir\": \"schema\",   \"version\": \"2.2.0\"},\n  \"channels\": [{\"name\": \"stable\"}]\n}\n"
	p := write(t, dir, "acpgen.json", text)
	changed, err := SetVersion(p, "2.4.0")
	if err != nil || !changed {
		t.Fatal(changed, err)
	}
	got, _ := os.ReadFile(p)
	if want := strings.Replace(text, "2.2.0", "2.4.0", 1); string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if changed, err := SetVersion(p, "2.4.0"); err != nil || changed {
		t.Fatal("setting the same version changed the file", err)
	}
}

// A channel whose file the lock lacks: when the lock pins the channel's
// unstable file, the release ships only that one; otherwise a pull may pin it.
func TestPinsChannels(t *testing.T) {
	old := &source.Lock{Package: "@agentclientprotocol/sdk", Version: "1.5.0", Files: map[string]string{
		source.UnstableFile: "sha256:a", source.V2UnstableFile: "sha256:b"}}
	for _, c := range []struct {
		channel string
		lock    *source.Lock
		want    string
	}{
		{"unstable", old, ""},
		{"v2-unstable", old, ""},
		{"stable", old, `@agentclientprotocol/sdk@1.5.0 ships no schema.json (channel stable), only the v1 unstable schema: configure the channel "unstable" instead`},
		{"v2", old, `@agentclientprotocol/sdk@1.5.0 ships no schema.v2.json (channel v2), only the v2 unstable schema: configure the channel "v2-unstable" instead`},
		{"v2", &source.Lock{Package: "p", Version: "1.0.0", Files: map[string]string{source.UnstableFile: "sha256:a"}},
			"lock.json pins no schema.v2.json (channel v2): run `acpgen schema pull` to pin every schema file of p@1.0.0 (releases before 1.3.0 ship no v2 schema)"},
	} {
		ch, _ := DefaultChannel(c.channel)
		r := &Resolved{LockDir: "schema", Config: generator.Config{Channels: []generator.Channel{ch}}}
		err := r.pinsChannels(c.lock)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.channel, err)
		case c.want != "" && (err == nil || !strings.HasSuffix(err.Error(), c.want)):
			t.Errorf("%s: %v, want ...%s", c.channel, err, c.want)
		}
	}
}

// Find looks in the current folder, then up to the module root and no
// further; outside a module only the current folder counts.
func TestFindWalksUpToTheModuleRoot(t *testing.T) {
	top := t.TempDir()
	mod := filepath.Join(top, "mod")
	sub := filepath.Join(mod, "internal", "pkg")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(p string) {
		t.Helper()
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A configuration above the module is never the module's.
	write(filepath.Join(top, FileName))
	write(filepath.Join(mod, "go.mod"))
	find := func(dir string) string {
		t.Helper()
		t.Chdir(dir)
		f, err := Find("")
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	if f := find(sub); f != "" {
		t.Errorf("found %q above the module root", f)
	}
	write(filepath.Join(mod, FileName))
	if f, want := find(sub), filepath.Join("..", "..", FileName); f != want {
		t.Errorf("from a subpackage: %q, want %q", f, want)
	}
	if f := find(mod); f != FileName {
		t.Errorf("at the module root: %q, want %q", f, FileName)
	}
	write(filepath.Join(sub, FileName))
	if f := find(sub); f != FileName {
		t.Errorf("the nearest one wins: %q", f)
	}
	// Outside any module: the current folder only.
	loose := filepath.Join(top, "loose", "deeper")
	if err := os.MkdirAll(loose, 0o755); err != nil {
		t.Fatal(err)
	}
	if f := find(loose); f != "" {
		t.Errorf("outside a module: found %q", f)
	}
}

// TestFindModuleReadsTheModuleDirective: the module path is the go.mod's
// module directive as the go command reads it (quoted, commented, or after
// other lines), found in the nearest folder at or above dir.
func TestFindModuleReadsTheModuleDirective(t *testing.T) {
	for gomod, want := range map[string]string{
		"module example.com/sdk\n\ngo 1.26.0\n":                   "example.com/sdk",
		"// modules: one\nmodule \"example.com/q\" // trailing\n": "example.com/q",
		"go 1.26\n\nmodule\texample.com/tab\n":                    "example.com/tab",
		"go 1.26\n":                                               "",
		"module\n":                                                "",
		"modules x\n":                                             "",
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
			t.Fatal(err)
		}
		sub := filepath.Join(dir, "a", "b")
		mod, modDir := FindModule(sub)
		if mod != want || modDir != dir {
			t.Errorf("FindModule under go.mod %q = %q, %q; want %q, %q", gomod, mod, modDir, want, dir)
		}
	}
}
