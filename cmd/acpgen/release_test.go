package main

import (
	"context"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator/source"
)

// TestReleaseEndToEnd runs `acpgen release` in downstream-like modules: a
// module that requires acpgen (replaced by this checkout), pins a schema
// release with a lock, and is a git repository with release tags. The
// subtests share one schema cache, so each release is fetched once.
func TestReleaseEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches releases with npm and type-checks generated packages")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not on the PATH")
	}
	cache := t.TempDir()
	t.Setenv(source.CacheEnv, cache)
	// apidiff type-checks the generated packages against the module's
	// requirement of acpgen, from the module cache only.
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOWORK", "off")
	t.Setenv("GOTOOLCHAIN", "local")
	// Tags are made with a fixed identity, whatever the user's git config.
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")

	t.Run("2.2.0 to 2.4.0", func(t *testing.T) {
		dir := releaseModule(t, cache, "2.2.0", "v0.3.0")
		// Generated before, as a real module would be; and a changelog
		// with an earlier entry, which must stay below the new one.
		if out, err := runIn(t, dir, "generate"); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		const earlier = "## v0.3.0 — @agentclientprotocol/sdk 2.1.0 → 2.2.0\n\nHand-written notes.\n"
		releaseWrite(t, filepath.Join(dir, "CHANGELOG.md"), "# Changelog\n\n"+earlier)

		out, err := runIn(t, dir, "release", "--to", "2.4.0")
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		mustContain(t, out,
			"@agentclientprotocol/sdk 2.2.0 -> 2.4.0\n",
			"  unstable: 39 additive, 28 docs\n",
			"Go API: minor\n",
			"version: v0.3.0 -> v0.4.0 (compatible Go API additions: minor)\n",
			filepath.Join("schema", "lock.json")+" (pins @agentclientprotocol/sdk@2.4.0)\n",
			"acpgen.json (schema.version 2.4.0)\n",
			filepath.Join("acp", "unstable", "types.go")+"\n",
			"CHANGELOG.md (v0.4.0 entry)\n",
			"git tag v0.4.0\n")
		mustLack(t, out, "module path")
		releasePinned(t, dir, "2.4.0")
		methods, err := os.ReadFile(filepath.Join(dir, "acp", "unstable", "methods.go"))
		if err != nil {
			t.Fatal(err)
		}
		mustContain(t, string(methods), `SchemaVersion = "2.4.0"`, "MethodSessionArchive")

		cl := releaseRead(t, filepath.Join(dir, "CHANGELOG.md"))
		if want := "# Changelog\n\n## v0.4.0 — @agentclientprotocol/sdk 2.2.0 → 2.4.0\n\nGo API: **minor** "; !strings.HasPrefix(cl, want) {
			t.Errorf("changelog does not start with %q:\n%s", want, cl)
		}
		if !strings.HasSuffix(cl, "\n\n"+earlier) {
			t.Errorf("the earlier entry is not kept below the new one:\n%s", cl)
		}
		mustContain(t, cl,
			"### unstable (`example.com/sdk/acp/unstable`)\n\nGo API: 0 incompatible, ",
			"#### Additive (39)\n",
			"- Added method `MethodSessionArchive` (`session/archive` request): handled by agent; params ArchiveSessionRequest, result ArchiveSessionResponse\n",
			"- Added capability `SessionCapabilities.Status`: optional SessionStatusCapabilities\n",
			"- Added field `SessionInfo.Archived`: optional bool\n",
			"- Added field `ListSessionsRequest.Archived`: optional SessionArchiveFilter\n",
			"#### Docs (28)\n",
			"`SessionID`", "`MCPError`", "`MessageMCPNotification`")
		// Go identifiers, not the schema's spellings.
		mustLack(t, cl, "SessionId", "McpError", "MessageMcp", "SessionInfo.archived", "#### Breaking", "incompatible Go API")
		if n := strings.Count(cl, "\n## "); n != 2 {
			t.Errorf("want 2 entries, got %d", n)
		}

		// Moving to the release already pinned is a no-op that says so and
		// succeeds (exit 0): a script may run release on every publication.
		before := tree(t, dir)
		out, err = runIn(t, dir, "release", "--to", "2.4.0")
		if err != nil || !strings.Contains(out, "already pins @agentclientprotocol/sdk@2.4.0: nothing to release") {
			t.Errorf("release to the pinned version: %v\n%s", err, out)
		}
		if !maps.Equal(before, tree(t, dir)) {
			t.Error("a refused release wrote files")
		}
	})

	// A regeneration that fails (here: an overlay file that is missing,
	// which only generation reads) puts the lock and the configuration back
	// and writes no changelog.
	t.Run("failed regeneration", func(t *testing.T) {
		dir := releaseModule(t, cache, "2.2.0", "v0.3.0")
		releaseWrite(t, filepath.Join(dir, "acpgen.json"), `{
  "schema": {"dir": "schema", "version": "2.2.0"},
  "channels": [{"name": "unstable", "overlays": ["missing-overlay.json"]}]
}
`)
		before := tree(t, dir)
		out, err := runIn(t, dir, "release", "--to", "2.4.0")
		var v verdictError
		if err == nil || errors.As(err, &v) {
			t.Fatalf("want an error, got %v\n%s", err, out)
		}
		mustContain(t, err.Error(), "regenerating from 2.4.0", "missing-overlay.json", "are back at 2.2.0")
		if !maps.Equal(before, tree(t, dir)) {
			t.Error("a failed release left files changed")
		}
	})

	// 0.10.0 ships only the unstable schema; moving from it breaks the Go
	// API, which before v1 takes a minor version.
	t.Run("0.10.0 to 2.4.0 under v0", func(t *testing.T) {
		dir := releaseModule(t, cache, "0.10.0", "v0.3.0")
		out, err := runIn(t, dir, "release", "--to", "2.4.0")
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		mustContain(t, out,
			"Go API: major\n",
			"version: v0.3.0 -> v0.4.0 (incompatible Go API changes; before v1 they take a minor version)\n",
			"git tag v0.4.0\n")
		releasePinned(t, dir, "2.4.0")
		cl := releaseRead(t, filepath.Join(dir, "CHANGELOG.md"))
		mustContain(t, cl,
			"# Changelog\n\n## v0.4.0 — @agentclientprotocol/sdk 0.10.0 → 2.4.0\n\nGo API: **major** ",
			"#### Incompatible Go API changes\n",
			"#### Breaking (22)\n",
			"- Removed method `MethodSessionSetModel` (`session/set_model` request): was handled by agent\n",
			"- Removed type `ModelID`: alias\n",
			"- Changed field `AuthenticateRequest.MethodID`: type AuthMethodID, was string\n",
			"- Added variant `MCPServer.ACP`: payload MCPServerACP; ",
			"- Added type `MCPServerACPID`: alias\n")
		mustLack(t, cl, "McpServer", "ModelId", "AuthMethodId", "SessionId", "module path")
		// The schema's removals, in Go names, are among apidiff's.
		removed := regexp.MustCompile("(?m)^- Removed (?:method|type|field|capability) `([^`]+)`").FindAllStringSubmatch(cl, -1)
		if len(removed) < 10 {
			t.Fatalf("want the removals listed, got %d", len(removed))
		}
		for _, m := range removed {
			if !strings.Contains(cl, "\n- `"+m[1]+"`: removed\n") {
				t.Errorf("%s is removed from the schema, but not among the incompatible Go API changes", m[1])
			}
		}
	})

	// From v1 on a major release needs --allow-major: without it, status 3
	// and nothing written; with it, v2.0.0 and the /v2 module path.
	t.Run("major from v1", func(t *testing.T) {
		dir := releaseModule(t, cache, "0.10.0", "v1.4.2", "v1.5.0-rc.1", "v0.9.0")
		before := tree(t, dir)
		out, err := runIn(t, dir, "release", "--to", "2.4.0")
		var v verdictError
		if !errors.As(err, &v) {
			t.Fatalf("want a verdict error (exit status %d), got %v\n%s", ExitStatusVerdict, err, out)
		}
		if ExitStatusVerdict != 3 {
			t.Errorf("ExitStatusVerdict is %d, want 3", ExitStatusVerdict)
		}
		mustContain(t, err.Error(), "--allow-major", "v2.0.0", "example.com/sdk/v2", "nothing written")
		mustContain(t, out, "version: v1.4.2 -> v2.0.0 (incompatible Go API changes: major)\n", "incompatible: ")
		if after := tree(t, dir); !maps.Equal(before, after) {
			for p := range after {
				if before[p] != after[p] {
					t.Errorf("%s written by a refused release", p)
				}
			}
			for p := range before {
				if _, ok := after[p]; !ok {
					t.Errorf("%s removed by a refused release", p)
				}
			}
		}

		out, err = runIn(t, dir, "release", "--to", "2.4.0", "--allow-major", "--changelog", "NEWS.md")
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		mustContain(t, out,
			"version: v1.4.2 -> v2.0.0",
			"`module example.com/sdk` -> `module example.com/sdk/v2`",
			"NEWS.md (v2.0.0 entry)\n",
			"git tag v2.0.0\n")
		releasePinned(t, dir, "2.4.0")
		mustContain(t, releaseRead(t, filepath.Join(dir, "NEWS.md")),
			"# Changelog\n\n## v2.0.0 — @agentclientprotocol/sdk 0.10.0 → 2.4.0\n\nGo API: **major** (incompatible Go API changes: major). Previous release: v1.4.2.\n\n"+
				"The module path changes from `example.com/sdk` to `example.com/sdk/v2`.\n")
		if _, err := os.Stat(filepath.Join(dir, "CHANGELOG.md")); err == nil {
			t.Error("CHANGELOG.md written although --changelog names NEWS.md")
		}
	})
}

// releaseModule makes a downstream module pinning schema release from, in a
// git repository tagged with tags.
func releaseModule(t *testing.T, cache, from string, tags ...string) string {
	t.Helper()
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	releaseWrite(t, filepath.Join(dir, "go.mod"), "module example.com/sdk\n\ngo 1.26.0\n\nrequire github.com/acpgen/acpgen v0.0.0\n\nreplace github.com/acpgen/acpgen => "+repo+"\n")
	releaseWrite(t, filepath.Join(dir, "go.sum"), releaseRead(t, filepath.Join(repo, "go.sum")))
	_, l, err := source.Fetch(context.Background(), source.FetchOptions{Cache: cache}, nil, from)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Write(filepath.Join(dir, "schema", source.LockFile)); err != nil {
		t.Fatal(err)
	}
	releaseWrite(t, filepath.Join(dir, "acpgen.json"), `{
  "schema": {"dir": "schema", "version": "`+from+`"},
  "channels": [{"name": "unstable"}]
}
`)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "pin "+from)
	for _, tag := range tags {
		git("tag", tag)
	}
	return dir
}

// releasePinned checks that the lock and the configuration moved to version.
func releasePinned(t *testing.T, dir, version string) {
	t.Helper()
	l, err := source.ReadLock(filepath.Join(dir, "schema", source.LockFile))
	if err != nil || l.Version != version {
		t.Errorf("lock after the release: %+v, %v", l, err)
	}
	if cfg := releaseRead(t, filepath.Join(dir, "acpgen.json")); !strings.Contains(cfg, `"version": "`+version+`"`) {
		t.Errorf("schema.version not set to %s:\n%s", version, cfg)
	}
	if _, err := os.Stat(filepath.Join(dir, "acp", "unstable", "types.go")); err != nil {
		t.Errorf("not regenerated: %v", err)
	}
}

func releaseWrite(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func releaseRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReleaseUsage: the help names every flag and the exit statuses; bad
// invocations fail before anything is fetched.
func TestReleaseUsage(t *testing.T) {
	out, err := runIn(t, t.TempDir(), "release", "--help")
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, out, "--to VERSION", "--config", "--cache-dir", "--allow-major", "--changelog FILE", "--npm",
		"Exit status: 0 released, or nothing to release; 1 error; 2 usage; 3 a major release from v1 on without --allow-major.")

	dir, urlDir := t.TempDir(), t.TempDir()
	releaseWrite(t, filepath.Join(urlDir, "acpgen.json"), `{"schema": {"url": "https://example.com/sdk.tgz"}, "channels": [{"name": "stable", "importPath": "example.com/sdk/acp"}]}`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"release"}, "no target release: give --to VERSION"},
		{[]string{"release", "2.4.0"}, `release takes no arguments, got ["2.4.0"] (the target is --to VERSION)`},
		{[]string{"release", "--to", "2.4.0", "extra"}, `release takes no arguments, got ["extra"]`},
		{[]string{"release", "--to", "2.4.0"}, "no acpgen.json in this folder"},
		{[]string{"release", "--to", "2.4.0", "--config", filepath.Join(urlDir, "acpgen.json")}, "sets schema.url (https://example.com/sdk.tgz), which fetches one fixed release"},
	} {
		_, err := runIn(t, dir, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.args, err, c.want)
		}
	}
	if len(tree(t, dir)) != 0 {
		t.Error("a failed release wrote files")
	}
}
