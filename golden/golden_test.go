package golden_test

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator"
	"github.com/acpgen/acpgen/generator/output"
	"github.com/acpgen/acpgen/generator/source"
	"github.com/acpgen/acpgen/internal/pinned"
)

var update = flag.Bool("update", false, "rewrite the golden packages instead of comparing them")

// A case is one golden package: the base schema plus overlays, in order.
type goldenCase struct {
	name     string // folder under golden/ and package name
	overlays []string
}

var (
	additionalDirectories = "overlays/additional-directories.json"
	runtimeContext        = "overlays/runtime-context.json"
	sandboxAgent          = "overlays/vendor/sandbox-agent.json"
	zeroClaw              = "overlays/vendor/zeroclaw.json"
)

var cases = []goldenCase{
	{"additionaldirectories", []string{additionalDirectories}},
	{"runtimecontext", []string{runtimeContext}},
	// A vendor package is complete: base, the RFDs it builds on, its own additions.
	{"sandboxagent", []string{additionalDirectories, runtimeContext, sandboxAgent}},
	{"zeroclaw", []string{zeroClaw}},
}

func goldenConfig(c goldenCase) generator.Config {
	return generator.Config{
		SchemaDir: "golden/testdata",
		Channels: []generator.Channel{{
			Name: "unstable", SchemaFile: "base.json", OutDir: "golden/" + c.name, Package: c.name,
			ImportPath: generator.Module + "/golden/" + c.name, Overlays: c.overlays,
		}},
	}
}

func TestGolden(t *testing.T) {
	t.Chdir("..")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := goldenConfig(c)
			files, err := generator.Generate(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if *update {
				if _, err := output.WriteContext(t.Context(), ".", files, cfg.Owned()); err != nil {
					t.Fatal(err)
				}
				return
			}
			changes, err := output.Compare(".", files, cfg.Owned())
			if err != nil {
				t.Fatal(err)
			}
			for _, ch := range changes {
				t.Errorf("%s is %s (go test ./golden -update rewrites it):\n%s", ch.Path, ch.Kind, output.Unified(ch))
			}
		})
	}
}

// TestVendorOverlaysOnPinnedSchema generates each vendor package from the
// pinned upstream schema, not the small base, and compiles it.
func TestVendorOverlaysOnPinnedSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles two full packages")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	// Inside the module, so the generated code imports its runtime; under
	// testdata, so ./... never sees it.
	tmp, err := os.MkdirTemp(filepath.Join(root, "golden", "testdata"), "vendor-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	rel, _ := filepath.Rel(root, tmp)
	rel = filepath.ToSlash(rel)
	vendors := []struct {
		name, schema string
		overlays     []string
	}{
		{"sandboxagent", source.UnstableFile, []string{additionalDirectories, runtimeContext, sandboxAgent}},
		{"zeroclaw", source.StableFile, []string{zeroClaw}},
	}
	var chans []generator.Channel
	var pkgs []string
	for _, v := range vendors {
		chans = append(chans, generator.Channel{
			Name: "unstable", SchemaFile: v.schema, OutDir: rel + "/" + v.name, Package: v.name,
			ImportPath: generator.Module + "/" + rel + "/" + v.name, Overlays: v.overlays,
		})
		pkgs = append(pkgs, "./"+rel+"/"+v.name)
	}
	cfg := generator.Config{SchemaDir: pinned.Dir(t), Channels: chans}
	files, err := generator.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := output.WriteContext(t.Context(), ".", files, cfg.Owned()); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", append([]string{"vet"}, pkgs...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet %s: %v\n%s", strings.Join(pkgs, " "), err, out)
	}
	for name, b := range files {
		if strings.HasSuffix(name, "/methods.go") && strings.Contains(name, "/sandboxagent/") && !strings.Contains(string(b), `"_sandboxagent/session/request_question"`) {
			t.Errorf("%s lacks the vendor method", name)
		}
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
				"golden/testdata/negative/schema-invalid.json#/changes/1/codes/0: title is required"}},
		{"vendor codes into ErrorCode", []string{neg("vendor-error-code")},
			[]string{"golden/testdata/negative/vendor-error-code.json#/changes/0/def: vendor error codes are a def of their own: ACP's ErrorCode gives the same numbers other meanings"}},
		{"unknown keyword in a fragment", []string{neg("unknown-keyword")},
			[]string{`golden/testdata/negative/unknown-keyword.json#/changes/0/schema/minLenght: unknown keyword "minLenght"`}},
		{"two overlays change one member differently", []string{neg("differently-a"), neg("differently-b")},
			[]string{`golden/testdata/negative/differently-b.json#/changes/0 (property PromptRequest.priority) against golden/testdata/base.json#/$defs/PromptRequest/properties/priority: overlay "differently-a" already changed it differently`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := goldenConfig(goldenCase{"negative", c.overlays})
			_, err := generator.Generate(cfg)
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
