// Package golden_test holds acpgen's golden tests: one small golden per
// overlay, the whole generated packages built, vetted and tested, and the
// overlays that must fail.
//
// Each case is one overlay on testdata/base.json, in its folder
// testdata/<overlay>/. TestGolden generates the case's package twice in
// memory, with the overlays the case's overlay builds on and with the
// case's overlay added, and compares what the overlay changes with the
// case's golden.go: the declarations it adds or changes (types, fields,
// methods, validators, gate rows, helpers, the Overlays entry), file by
// file, shortened where they are the same as without the overlay (see
// delta_test.go). That is the review surface: a change to an emitter shows
// in a golden only where it changes what an overlay generates. A stale
// golden fails go test ./golden with a unified diff, and so go test ./...
// (test.sh, CI); go test ./golden -update rewrites the goldens.
//
// The whole generated packages (some 10,000 lines each) are not committed:
// TestGeneratedPackages builds them where they belong, in the case folders,
// from files it hands the go command through -overlay (the generated files
// and the folder's hand-written behaviour_test.go; golden.go hidden), and
// runs their generated and hand-written tests under all of go vet's checks.
// Nothing is written into the module, so concurrent runs do not collide and
// no generated file is left behind; the paths are fixed and the go command
// caches by content, so an unchanged generation reuses the compiled
// packages. That keeps what committed packages guaranteed (they compile,
// vet and pass their tests) without 40,000 committed lines that every
// emitter change rewrites, and costs no test time: on the 2-core machine
// go test ./golden takes about 5 s when the generated code is unchanged
// and 10 s when it changed, as go test ./golden/... and go vet take on
// committed packages.
package golden_test

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator"
	"github.com/acpgen/acpgen/generator/emit"
	"github.com/acpgen/acpgen/generator/output"
	"github.com/acpgen/acpgen/generator/source"
	"github.com/acpgen/acpgen/internal/pinned"
)

var update = flag.Bool("update", false, "rewrite the goldens instead of comparing them")

var (
	additionalDirectories = "overlays/additional-directories.json"
	runtimeContext        = "overlays/runtime-context.json"
	resumableTransport    = "overlays/resumable-transport.json"
	sandboxAgent          = "overlays/vendor/sandbox-agent.json"
	zeroClaw              = "overlays/vendor/zeroclaw.json"
)

// A case is one overlay on golden/testdata/base.json.
type goldenCase struct {
	overlay string   // the overlay the case shows
	needs   []string // overlays applied before it, in order
	pkg     string   // Go package name of the generated code
}

var cases = []goldenCase{
	{additionalDirectories, nil, "additionaldirectories"},
	{runtimeContext, nil, "runtimecontext"},
	// A vendor overlay on the RFDs it builds on.
	{sandboxAgent, []string{additionalDirectories, runtimeContext}, "sandboxagent"},
	{zeroClaw, nil, "zeroclaw"},
	{resumableTransport, nil, "resumabletransport"},
}

// dir is the case's folder, relative to the repository root: testdata/
// and the overlay's file name without .json. The package is generated
// there, with the import path of that folder.
func (c goldenCase) dir() string {
	return "golden/testdata/" + strings.TrimSuffix(path.Base(c.overlay), ".json")
}

func (c goldenCase) golden() string { return c.dir() + "/golden.go" }

func (c goldenCase) overlays() []string { return append(slices.Clone(c.needs), c.overlay) }

// channel generates base.json with overlays into outDir (relative to the
// repository root) as package pkg.
func channel(outDir, pkg string, overlays []string) generator.Channel {
	return generator.Channel{
		Name: "unstable", SchemaFile: "base.json", OutDir: outDir, Package: pkg,
		ImportPath: generator.Module + "/" + outDir, Overlays: overlays,
	}
}

func baseConfig(chans ...generator.Channel) generator.Config {
	return generator.Config{SchemaDir: "golden/testdata", Channels: chans}
}

// TestGolden compares each overlay's golden with a fresh generation.
func TestGolden(t *testing.T) {
	t.Chdir("..")
	goldens, err := filepath.Glob("golden/testdata/*/golden.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range goldens { // of a case that is gone
		g = filepath.ToSlash(g)
		if slices.ContainsFunc(cases, func(c goldenCase) bool { return c.golden() == g }) {
			continue
		}
		if !*update {
			t.Errorf("%s is the golden of no case (go test ./golden -update removes it)", g)
		} else if err := os.Remove(g); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range cases {
		t.Run(path.Base(c.dir()), func(t *testing.T) {
			before, err := generator.Generate(baseConfig(channel(c.dir(), c.pkg, c.needs)))
			if err != nil {
				t.Fatal(err)
			}
			after, err := generator.Generate(baseConfig(channel(c.dir(), c.pkg, c.overlays())))
			if err != nil {
				t.Fatal(err)
			}
			header := "// Code generated by go test ./golden -update. DO NOT EDIT.\n\n" +
				"// What " + c.overlay + " changes in the Go generated from\n" +
				"// golden/testdata/base.json"
			if len(c.needs) > 0 {
				header += " with " + strings.Join(c.needs, " and ")
			}
			header += ", by generated file:\n" +
				"// the declarations it adds, and those it changes, where \"// ... N unchanged\"\n" +
				"// stands for statements, cases or elements that are the same without it\n" +
				"// and \"// removed:\" shows code it takes out. The summary of each file also\n" +
				"// names what it removes, and what it adds the same as another type's.\n" +
				"//\n" +
				"// Not compiled: go test ./golden builds the whole package in this folder\n" +
				"// from the generated files and behaviour_test.go, and tests it.\n"
			src, err := delta(header, c.pkg, before, after)
			if err != nil {
				t.Fatal(err)
			}
			// The package's tests read the schema it was generated from
			// beside it, so TestGeneratedPackages needs it on disk.
			schema := c.dir() + "/" + emit.TestSchemaFile
			files := map[string][]byte{c.golden(): src, schema: after[schema]}
			if *update {
				if _, err := output.WriteContext(t.Context(), ".", files, nil); err != nil {
					t.Fatal(err)
				}
				return
			}
			changes, err := output.Compare(".", files, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, ch := range changes {
				t.Errorf("%s is %s (go test ./golden -update rewrites it):\n%s", ch.Path, ch.Kind, output.Unified(ch))
			}
		})
	}
}

// TestGeneratedPackages builds each case's whole package in its folder,
// with its hand-written behaviour tests, and runs its tests with go vet's
// checks.
func TestGeneratedPackages(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	var chans []generator.Channel
	var pkgs []string
	for _, c := range cases {
		chans = append(chans, channel(c.dir(), c.pkg, c.overlays()))
		pkgs = append(pkgs, "./"+c.dir())
	}
	files, err := generator.Generate(baseConfig(chans...))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		name := c.dir() + "/behaviour_test.go"
		if files[name] != nil {
			t.Fatalf("generation writes %s, a hand-written file", name)
		}
		if files[name], err = os.ReadFile(name); err != nil {
			t.Fatal(err)
		}
	}
	// -vet=all: go test runs every go vet check, on the packages with
	// their tests, in the same build.
	args := []string{"test", "-vet=all", "-count=1"}
	if testing.Short() {
		args = append(args, "-short")
	}
	goWith(t, root, files, append(args, pkgs...)...)
}

// TestVendorOverlaysOnPinnedSchema generates each vendor package from the
// pinned upstream schema, not the small base, and vets it.
func TestVendorOverlaysOnPinnedSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("vets two full packages")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	vendors := []struct {
		c      goldenCase
		schema string
	}{
		{cases[2], source.UnstableFile},
		{cases[3], source.StableFile},
	}
	var chans []generator.Channel
	var pkgs []string
	for _, v := range vendors {
		ch := channel(v.c.dir(), v.c.pkg, v.c.overlays())
		ch.SchemaFile = v.schema
		chans = append(chans, ch)
		pkgs = append(pkgs, "./"+ch.OutDir)
	}
	files, err := generator.Generate(generator.Config{SchemaDir: pinned.Dir(t), Channels: chans})
	if err != nil {
		t.Fatal(err)
	}
	methods := cases[2].dir() + "/methods.go"
	if !strings.Contains(string(files[methods]), `"_sandboxagent/session/request_question"`) {
		t.Errorf("%s lacks the vendor method", methods)
	}
	goWith(t, root, files, append([]string{"vet"}, pkgs...)...)
}

// goWith runs the go command in root as if the folders of files (paths
// relative to root) held exactly those files: they are written to a
// temporary folder outside the module and handed to the go command with
// -overlay, which also hides every other .go file of those folders.
func goWith(t *testing.T, root string, files map[string][]byte, args ...string) {
	t.Helper()
	tmp := t.TempDir()
	replace, dirs := map[string]string{}, map[string]bool{}
	for name, b := range files {
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		if dir := filepath.Join(root, filepath.FromSlash(path.Dir(name))); !dirs[dir] {
			dirs[dir] = true
			real, err := filepath.Glob(filepath.Join(dir, "*.go"))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range real {
				if _, ok := replace[r]; !ok {
					replace[r] = "" // hidden, unless one of files
				}
			}
		}
		backing := filepath.Join(tmp, strings.ReplaceAll(name, "/", "%"))
		if err := os.WriteFile(backing, b, 0o644); err != nil {
			t.Fatal(err)
		}
		replace[filepath.Join(root, filepath.FromSlash(name))] = backing
	}
	overlay, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		t.Fatal(err)
	}
	overlayFile := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	args = append([]string{args[0], "-overlay=" + overlayFile}, args[1:]...)
	cmd := exec.CommandContext(t.Context(), "go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestNegativeOverlays: overlays that must fail, each with the error it must give.
func TestNegativeOverlays(t *testing.T) {
	t.Chdir("..")
	neg := func(name string) string { return "golden/testdata/negative/" + name + ".json" }
	for _, c := range []struct {
		name     string
		overlays []string
		want     []string
	}{
		{"missing target", []string{neg("missing-target")},
			[]string{"golden/testdata/negative/missing-target.json#/changes/0: target $defs/CloseSessionRequest does not exist in golden/testdata/base.json"}},
		{"conflict with the base", []string{neg("conflict")},
			[]string{"1 overlay conflict(s):",
				"golden/testdata/negative/conflict.json#/changes/0 (additionalDirectories as one string) against golden/testdata/base.json#/$defs/NewSessionRequest/properties/additionalDirectories: the base has it with a different shape: type is \"array\" in the base, \"string\" in the overlay"}},
		{"schema-invalid overlay", []string{neg("schema-invalid")},
			[]string{"not a valid acpgen overlay:",
				"golden/testdata/negative/schema-invalid.json#/changes/0: name is required",
				"golden/testdata/negative/schema-invalid.json#/changes/1/codes/0: Additional property name is not allowed",
				"golden/testdata/negative/schema-invalid.json#/changes/1/codes/0: title is required",
				"golden/testdata/negative/schema-invalid.json#/changes/2: Additional property alias is not allowed",
				"golden/testdata/negative/schema-invalid.json#/changes/2: aliases is required"}},
		{"vendor codes into ErrorCode", []string{neg("vendor-error-code")},
			[]string{"golden/testdata/negative/vendor-error-code.json#/changes/0/def: vendor error codes are a def of their own: ACP's ErrorCode gives the same numbers other meanings"}},
		{"unknown keyword in a fragment", []string{neg("unknown-keyword")},
			[]string{`golden/testdata/negative/unknown-keyword.json#/changes/0/schema/minLenght: unknown keyword "minLenght"`}},
		{"two overlays change one member differently", []string{neg("differently-a"), neg("differently-b")},
			[]string{`golden/testdata/negative/differently-b.json#/changes/0 (property PromptRequest.priority) against golden/testdata/base.json#/$defs/PromptRequest/properties/priority: overlay "differently-a" already changed it differently`}},
		{"alias colliding with a member", []string{neg("alias-collides")},
			[]string{`golden/testdata/negative/alias-collides.json#/changes/0/aliases/1: alias "mcpServers" of cwd collides with the member "mcpServers" of $defs/NewSessionRequest`}},
		{"one alias for two members", []string{neg("alias-twice")},
			[]string{`golden/testdata/negative/alias-twice.json#/changes/1/aliases/1: alias "dir" of additionalDirectories collides with an alias of member "cwd" of $defs/NewSessionRequest`}},
		{"malformed capability pointer", []string{neg("malformed-pointer")},
			[]string{`golden/testdata/negative/malformed-pointer.json#/changes/0/gate/capability: JSON pointer "/agentCapabilities/_meta/vendor~2dev/priority": token "vendor~2dev" has a ~ that is not ~0 or ~1`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := generator.Generate(baseConfig(channel("golden/testdata/negative", "negative", c.overlays)))
			if err == nil {
				t.Fatal("generation succeeded")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error:\n%v\nlacks:\n%s", err, w)
				}
			}
		})
	}
}
