package main

import (
	"context"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/acpgen/acpgen/generator/source"
)

// testCache is the schema cache of the whole test run ($ACPGEN_CACHE for
// every command the tests run), so each version is fetched once however many
// tests use it, and the user's own cache is never touched.
var testCache string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "acpgen-cmd-test-")
	if err != nil {
		panic(err)
	}
	testCache = dir
	os.Setenv(source.CacheEnv, dir)
	// In process, acpgen is this test binary, built from the checkout: the
	// tests of what a build without a version does see none. The built
	// binary (acpgenBinary) finds its checkout.
	checkoutOf = func() string { return "" }
	code := m.Run()
	os.RemoveAll(dir)
	os.Remove(dir + "-acpgen")
	os.Exit(code)
}

func needNpm(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not on the PATH; the README's setup needs it")
	}
}

var fetchMu sync.Mutex

// fetched returns the test cache's folder of version v of the schema
// package, fetched with npm when missing (never into the repository).
func fetched(t *testing.T, v string) string {
	t.Helper()
	fetchMu.Lock()
	defer fetchMu.Unlock()
	if _, err := os.Stat(source.VersionDir(testCache, v)); err != nil {
		needNpm(t)
	}
	d, _, err := source.Fetch(context.Background(), source.FetchOptions{Cache: testCache}, nil, v)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// repoLock is the repository's lock, which pins 2.4.0.
const repoLock = "../../schema/lock.json"

func mustContain(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

func mustLack(t *testing.T, out string, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(out, w) {
			t.Errorf("output has %q:\n%s", w, out)
		}
	}
}

func TestPinnedIs240(t *testing.T) {
	l, err := source.ReadLock(repoLock)
	if err != nil {
		t.Fatal(err)
	}
	if l.Version != "2.4.0" {
		t.Fatalf("the release tests below assume the pinned schema is 2.4.0, lock says %s", l.Version)
	}
}

// TestSchemaDiffIdenticalReleases: 2.3.0 and 2.4.0 ship byte-identical
// schemas. The old side is given as a version, fetched by the command itself
// into the cache; the new one as a folder.
func TestSchemaDiffIdenticalReleases(t *testing.T) {
	needNpm(t)
	folder := schemaCopy(t, false)
	out, err := run(t, "schema", "diff", "2.3.0", folder)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, out,
		"schema diff 2.3.0 -> "+folder,
		"stable (schema.json): no changes",
		"unstable (schema.unstable.json): no changes",
		"\nno changes\n")
}

// TestSchemaDiff220To240: in stable only descriptions changed; unstable gained
// methods, types, capabilities and fields, nothing breaking.
func TestSchemaDiff220To240(t *testing.T) {
	fetched(t, "2.2.0")
	old := "2.2.0"
	out, err := run(t, "schema", "diff", old, "2.4.0")
	if err != nil {
		t.Fatal(err)
	}
	stable, unstable, _ := strings.Cut(out, "\nunstable (")
	mustContain(t, stable,
		"stable (schema.json): 7 docs",
		"docs     changed type       SessionId: description text",
		"docs     changed capability ClientSessionCapabilities: description text")
	mustLack(t, stable, "additive", "breaking")
	mustContain(t, unstable,
		"schema.unstable.json): 39 additive, 28 docs",
		"additive added   method     session/archive (request): handled by agent; params ArchiveSessionRequest, result ArchiveSessionResponse",
		"additive added   method     proxy/successor (notification): handled by proxy",
		"additive added   method     proxy/successor (request): handled by proxy",
		"additive added   capability SessionCapabilities.status: optional SessionStatusCapabilities",
		"additive added   capability AuthStatusCapabilities: struct",
		"additive added   type       SessionStatus: enum",
		"additive added   field      SessionInfo.archived: optional bool",
		"additive added   field      ListSessionsRequest.archived: optional SessionArchiveFilter",
		"additive: a Go SDK generated from the new schema needs a minor version")
	mustLack(t, unstable, "breaking")

	md, err := run(t, "schema", "diff", "--format", "markdown", "--channel", "unstable", old, "2.4.0")
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, md,
		"## ACP schema changes: "+old+" → 2.4.0",
		"**Additive: a Go SDK generated from the new schema needs a minor version**",
		"### unstable (`schema.unstable.json`)",
		"#### Additive (39)",
		"- Added method `session/set_title (request)`: handled by agent",
		"#### Docs (28)")
	mustLack(t, md, "### stable")
}

// TestSchemaDiff0100To240: 0.10.0 ships only that day's unstable schema, so
// only unstable is compared, with real breaking changes.
func TestSchemaDiff0100To240(t *testing.T) {
	fetched(t, "0.10.0")
	old := "0.10.0"
	out, err := run(t, "schema", "diff", old, "2.4.0")
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, out,
		"stable (schema.json): only in 2.4.0 ("+old+" has no schema.json): not compared",
		"breaking removed method     session/set_model (request): was handled by agent",
		"breaking changed method     terminal/kill (request): params KillTerminalRequest, was KillTerminalCommandRequest",
		"breaking changed type       AuthMethod: union, was struct",
		"breaking removed field      NewSessionResponse.models: optional SessionModelState",
		"breaking changed field      AuthenticateRequest.methodId: type AuthMethodId, was string",
		"additive added   field      NewSessionRequest.additionalDirectories: optional []string",
		"additive added   capability SessionCapabilities.additionalDirectories",
		"additive added   variant    McpServer[acp]: payload McpServerAcp; closed union: SDKs built from the old schema reject it",
		"additive added   variant    SessionUpdate[usage_update]",
		"additive added   method     session/close (request)",
		"breaking: a Go SDK generated from the new schema needs a major version")

	md, err := run(t, "schema", "diff", "--format", "markdown", old, "2.4.0")
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, md, "#### Breaking (", "- Removed method `session/set_model (request)`", "- More lenient decoding (x-deserialize-")
}

// TestApidiff220To240 runs in the repository root: the configuration there
// names the packages compared.
func TestApidiff220To240(t *testing.T) {
	fetched(t, "2.2.0")
	t.Chdir(filepath.Join("..", ".."))
	out, err := run(t, "apidiff", "2.2.0", "2.4.0")
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, out,
		"stable (github.com/acpgen/acpgen/gen/acp): no API changes",
		"unstable (github.com/acpgen/acpgen/gen/acp/unstable): 0 incompatible, ",
		"compatible:   MethodSessionArchive: added",
		"compatible:   SessionInfo.Archived: added",
		"release: minor")
	mustLack(t, out, "incompatible: ")
}

// TestSchemaPullAfterBump moves a configured, pinned folder from 0.10.0 to
// 2.4.0: the lock and the configuration follow, and the command shows the
// schema diff and which overlay changes became upstream (additionalDirectories
// was not in 0.10.0 and is in 2.4.0).
func TestSchemaPullAfterBump(t *testing.T) {
	old := fetched(t, "0.10.0")
	dir := t.TempDir()
	schema := filepath.Join(dir, "schema")
	os.Mkdir(schema, 0o755)
	if err := copyFile(filepath.Join(old, source.LockFile), filepath.Join(schema, source.LockFile)); err != nil {
		t.Fatal(err)
	}
	ov, _ := filepath.Abs("../../overlays/additional-directories.json")
	cfg := filepath.Join(dir, "acpgen.json")
	os.WriteFile(cfg, []byte(`{"schema": {"dir": "schema", "version": "0.10.0"},
  "channels": [{"name": "unstable", "overlays": [`+quote(ov)+`]}]}`), 0o644)
	out, err := run(t, "schema", "pull", "--config", cfg, "--version", "2.4.0")
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, out,
		filepath.Join(schema, source.LockFile)+" pins @agentclientprotocol/sdk@2.4.0 (4 files in "+source.VersionDir(testCache, "2.4.0")+")",
		cfg+": schema.version set to 2.4.0",
		"schema diff 0.10.0 -> 2.4.0",
		"breaking removed method     session/set_model (request)",
		"overlay status on the new schema:\n  unstable: additional-directories ",
		"  <- became upstream\n")
	l, err := source.ReadLock(filepath.Join(schema, source.LockFile))
	if err != nil || l.Version != "2.4.0" {
		t.Fatalf("lock after the bump: %+v, %v", l, err)
	}
	if data, _ := os.ReadFile(cfg); !strings.Contains(string(data), `"version": "2.4.0"`) {
		t.Fatalf("configuration not updated:\n%s", data)
	}
	// The repository holds only the lock; the files are in the cache.
	if got := tree(t, schema); len(got) != 1 {
		t.Errorf("schema folder holds %d files, want only the lock", len(got))
	}
	// Pulling the pinned version again only verifies.
	out, err = run(t, "schema", "pull", "--config", cfg)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, out, "@agentclientprotocol/sdk@2.4.0 verified against ")
	mustLack(t, out, "schema diff")

	// In a fresh clone with no lock yet there is nothing to compare with,
	// and the command says so.
	os.Remove(filepath.Join(schema, source.LockFile))
	out, err = run(t, "schema", "pull", "--config", cfg, "--version", "2.2.0")
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, out, " pins @agentclientprotocol/sdk@2.2.0 ", "no earlier lock: nothing to compare 2.2.0 with")
}

// TestFailOn: --fail-on breaking turns a breaking verdict into exit status 3
// (after the report), and leaves other verdicts alone.
func TestFailOn(t *testing.T) {
	fetched(t, "0.10.0")
	fetched(t, "2.2.0")
	out, err := run(t, "schema", "diff", "--fail-on", "breaking", "0.10.0", "2.4.0")
	var v verdictError
	if !errors.As(err, &v) || !strings.Contains(out, "breaking: a Go SDK generated from the new schema needs a major version") {
		t.Fatalf("breaking diff with --fail-on: %v\n%.300s", err, out)
	}
	if _, err := run(t, "schema", "diff", "--fail-on", "breaking", "2.2.0", "2.4.0"); err != nil {
		t.Fatalf("additive diff with --fail-on: %v", err)
	}
	if _, err := run(t, "schema", "diff", "--fail-on", "minor", "2.2.0", "2.4.0"); err == nil || !strings.Contains(err.Error(), "want breaking or major") {
		t.Fatalf("bad --fail-on value: %v", err)
	}
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `\`, `\\`) + `"` }

// TestConfigDrivesGenerate: a configuration in another module chooses
// folders, packages and channels; import paths come from its go.mod; flags
// override; errors name the file and key.
func TestConfigDrivesGenerate(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/down\n\ngo 1.26\n"), 0o644)
	schema := filepath.Join(dir, "schema")
	os.Mkdir(schema, 0o755)
	copyFile(repoLock, filepath.Join(schema, source.LockFile))
	cfg := filepath.Join(dir, "acpgen.json")
	os.WriteFile(cfg, []byte(`{
  "schema": {"dir": "schema"},
  "channels": [{"name": "stable", "out": "sdk/acp", "package": "acp"}]
}`), 0o644)
	if out, err := run(t, "generate", "--config", cfg); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	types, err := os.ReadFile(filepath.Join(dir, "sdk", "acp", "types.go"))
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, string(types), "// Code generated by acpgen", "\npackage acp\n")
	if _, err := os.Stat(filepath.Join(dir, "sdk", "acp", "unstable")); err == nil {
		t.Error("unstable generated although the configuration lists stable only")
	}
	if out, err := run(t, "generate", "--config", cfg, "--check"); err != nil {
		t.Fatalf("fresh output is stale: %v\n%s", err, out)
	}
	// Flags override the file.
	if out, err := run(t, "generate", "--config", cfg, "--channel", "stable", "--out", "other", "--package", "other"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	other, err := os.ReadFile(filepath.Join(dir, "other", "types.go"))
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, string(other), "\npackage other\n")

	for _, c := range []struct{ text, want string }{
		{`{"chanels": []}`, cfg + ": chanels: unknown key"},
		{`{"channels": [{"name": "stable", "package": 1}]}`, cfg + ": channels[0].package: Invalid type"},
		{`{"schema": {"dir": "schema", "version": "2.3.0"}, "channels": [{"name": "stable"}]}`, cfg + ": schema.version is 2.3.0 but "},
		{`{"schema": {"dir": "none"}, "channels": [{"name": "stable"}]}`, "lock.json does not exist and " + cfg + " sets no schema.version"},
	} {
		os.WriteFile(cfg, []byte(c.text), 0o644)
		_, err := run(t, "generate", "--config", cfg, "--check")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.text, err, c.want)
		}
	}
	if _, err := run(t, "generate", "--config", filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "--config") {
		t.Errorf("missing --config file: %v", err)
	}
}

// TestRepoGenerateReadsConfig: in the repository root, generate without
// flags reads acpgen.json, as the README's command and CI do; so does
// generate in a subpackage, and --channel judges gates over every channel.
func TestRepoGenerateReadsConfig(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	out, err := run(t, "config", "show")
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, out, `"file": "acpgen.json"`, `"out": "gen/acp/unstable"`, `"importPath": "github.com/acpgen/acpgen/gen/acp"`)
	if out, err := run(t, "generate", "--check"); err != nil {
		t.Fatalf("%v\n%.3000s", err, out)
	}
	// One channel, with strict gates: a row for another configured channel
	// is not stale.
	if out, err := run(t, "generate", "--check", "--channel", "stable"); err != nil {
		t.Fatalf("--channel stable: %v\n%.3000s", err, out)
	}
	// From a subpackage: the module's acpgen.json, its paths relative to it.
	t.Chdir(filepath.Join("gen", "acp"))
	if out, err := run(t, "generate", "--check", "--channel", "v2"); err != nil {
		t.Fatalf("from gen/acp: %v\n%.3000s", err, out)
	}
}

// TestFailedGenerateLeavesOutput: a generation that fails (here an overlay
// that does not exist) leaves earlier output byte-identical.
func TestFailedGenerateLeavesOutput(t *testing.T) {
	schema, cfg := schemaCopy(t, false), configFile(t)
	root := t.TempDir()
	if _, err := run(t, "generate", "--config", cfg, "--schema-dir", schema, "--root", root); err != nil {
		t.Fatal(err)
	}
	before := tree(t, root)
	_, err := run(t, "generate", "--config", cfg, "--schema-dir", schema, "--root", root, "--descriptions", "--overlay", filepath.Join(t.TempDir(), "missing.json"))
	if err == nil {
		t.Fatal("generation with a missing overlay succeeded")
	}
	if after := tree(t, root); !maps.Equal(before, after) {
		t.Fatal("a failed generation changed the output")
	}
}

// tree maps every file under root, hidden ones included, to its content.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// An overlay path that cannot be read is reported with the configuration
// key, in its file, or the flag that gave it.
func TestMissingOverlayNamesItsKey(t *testing.T) {
	schema := schemaCopy(t, false)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "acpgen.json")
	if err := os.WriteFile(cfg, []byte(`{"channels": [
  {"name": "stable", "importPath": "example.com/gen/acp"},
  {"name": "unstable", "importPath": "example.com/gen/acp/unstable", "overlays": ["overlays/typo.json"]}
]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := run(t, "generate", "--config", cfg, "--schema-dir", schema)
	want := cfg + ": channels[1].overlays[0]: overlay " + filepath.Join(dir, "overlays", "typo.json") + ": no such file or directory"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	missing := filepath.Join(dir, "flag.json")
	_, err = run(t, "generate", "--config", cfg, "--schema-dir", schema, "--channel", "stable", "--overlay", missing)
	if want := "--overlay: overlay " + missing + ": no such file or directory"; err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}
