package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/acpgen/acpgen/generator/source"
)

// TestDownstream runs docs/downstream.md's "Using acpgen from another module" in new
// modules, command for command (it fails when the doc shows a command it did not run), as a user does once acpgen is published:
// this checkout is served as github.com/acpgen/acpgen@testVersion by a local
// module proxy, every other module comes from the environment's proxy into
// an empty module cache, and the schema cache starts empty (npm fetches the
// releases; without npm they are copied from this machine's schema caches).
// See newDownstream for the environment.
func TestDownstream(t *testing.T) {
	if testing.Short() {
		t.Skip("builds modules with the go command and fetches their dependencies")
	}
	d := newDownstream(t, repoRoot(t))
	base := t.TempDir()
	mod := filepath.Join(base, "downstream")
	if err := os.Mkdir(mod, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(mod, filepath.FromSlash(name)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// Install, configure, generate, build.
	d.must(mod, "go mod init example.com/downstream")
	d.must(mod, "go get -tool github.com/acpgen/acpgen/cmd/acpgen@"+testVersion)
	out := d.must(mod, "go tool acpgen init")
	mustContain(t, out, "wrote acpgen.json and acpgen.schema.json", "next: go tool acpgen generate")
	write("generate.go", "package downstream\n\n//go:generate go tool acpgen generate\n")
	d.must(mod, "go generate ./...")
	d.must(mod, "go mod tidy")
	d.must(mod, "go build ./...")
	d.must(mod, "go vet ./...")
	out = d.must(mod, "go test ./...")
	mustContain(t, out, "ok  \texample.com/downstream/acp")
	// The generated tests are hermetic: they pass with npm off the PATH and
	// an empty schema cache, reading only what generate wrote.
	h, untouched := d.hermetic()
	out = h.must(mod, "go test -count=1 ./...")
	mustContain(t, out, "ok  \texample.com/downstream/acp")
	untouched()
	for _, name := range []string{"types.go", "defs_test.go", "gates_test.go"} {
		if _, err := os.Stat(filepath.Join(mod, "acp", name)); err != nil {
			t.Errorf("generated package: %v", err)
		}
	}
	lock, err := source.ReadLock(filepath.Join(mod, "schema", source.LockFile))
	if err != nil || lock.Version != "2.4.0" {
		t.Fatalf("schema/lock.json: %+v, %v", lock, err)
	}
	gomod, _ := os.ReadFile(filepath.Join(mod, "go.mod"))
	mustContain(t, string(gomod), "tool github.com/acpgen/acpgen/cmd/acpgen", "github.com/acpgen/acpgen "+testVersion+"\n")

	// CI: --check passes, and fails with exit status 1 and a diff after a
	// hand edit, writing nothing; go generate repairs it.
	d.exit(mod, "go tool acpgen generate --check", 0)
	types := filepath.Join(mod, "acp", "types.go")
	data, _ := os.ReadFile(types)
	edited := bytes.Replace(data, []byte("type SessionNotification struct"), []byte("type SessionNote struct"), 1)
	if err := os.WriteFile(types, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	out = d.exit(mod, "go tool acpgen generate --check", 1)
	mustContain(t, out, "--- a/acp/types.go", "-type SessionNote struct", "+type SessionNotification struct", "generated files are stale: run `go tool acpgen generate`")
	if now, _ := os.ReadFile(types); !bytes.Equal(now, edited) {
		t.Error("--check wrote files")
	}
	d.must(mod, "go generate ./...")
	d.exit(mod, "go tool acpgen generate --check", 0)

	out = d.must(mod, "go tool acpgen version")
	mustContain(t, out, "acpgen "+testVersion+" go", "schema "+source.Package+"@2.4.0")

	t.Run("scaffold", func(t *testing.T) {
		d := &downstream{t: t, env: d.env, ran: d.ran}
		// Inside the module: the starter joins it and builds on the package
		// acpgen.json generates.
		out := d.must(mod, "go tool acpgen scaffold agent --out cmd/my-agent")
		mustContain(t, out, "on example.com/downstream/acp (from acpgen.json)", "it joins the module at .")
		agentDir := d.nextSteps(mod, out)
		// Beside it: a module of its own, requiring acpgen at the same
		// version and the downstream module from its folder.
		out = d.must(mod, "go tool acpgen scaffold client --out ../my-client")
		clientDir := d.nextSteps(mod, out)
		gomod, _ := os.ReadFile(filepath.Join(clientDir, "go.mod"))
		// The starter imports only the generated package, so after go mod
		// tidy acpgen may be an indirect requirement; its version must hold.
		mustContain(t, string(gomod), "github.com/acpgen/acpgen "+testVersion, "replace example.com/downstream => "+mod+"\n")
		d.must(mod, "go vet ./...")
		out = d.must(clientDir, "./bin/my-client -prompt ping "+filepath.Join(agentDir, "bin", "my-agent"))
		mustContain(t, out, "You said: ping", "stop reason: end_turn")
	})

	// Moving to a newer schema release, in a module that pinned an older
	// one and is a git repository with a release tag.
	t.Run("release", func(t *testing.T) {
		d := &downstream{t: t, ran: d.ran, env: append(d.env,
			"GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")}
		old := filepath.Join(base, "older")
		if err := os.Mkdir(old, 0o755); err != nil {
			t.Fatal(err)
		}
		d.must(old, "go mod init example.com/older")
		d.must(old, "go get -tool github.com/acpgen/acpgen/cmd/acpgen@"+testVersion)
		d.must(old, "go tool acpgen init --version 2.2.0")
		if err := os.WriteFile(filepath.Join(old, "generate.go"), []byte("package older\n\n//go:generate go tool acpgen generate\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		d.must(old, "go generate ./...")
		d.must(old, "go mod tidy")
		d.must(old, "go build ./...")
		d.must(old, "git init -q")
		d.must(old, "git add -A")
		d.must(old, "git commit -q -m v0.1.0")
		d.must(old, "git tag v0.1.0")

		out := d.must(old, "go tool acpgen release --to 2.4.0")
		// 2.2.0 to 2.4.0 changes only descriptions in stable: a patch.
		mustContain(t, out, source.Package+" 2.2.0 -> 2.4.0\n", "version: v0.1.0 -> v0.1.1 ", "CHANGELOG.md (v0.1.1 entry)", "git tag v0.1.1\n")
		lock, err := source.ReadLock(filepath.Join(old, "schema", source.LockFile))
		if err != nil || lock.Version != "2.4.0" {
			t.Fatalf("schema/lock.json after release: %+v, %v", lock, err)
		}
		mustContain(t, out, "Go API: patch\n")
		cfg, _ := os.ReadFile(filepath.Join(old, "acpgen.json"))
		mustContain(t, string(cfg), `"version": "2.4.0"`)
		changelog, _ := os.ReadFile(filepath.Join(old, "CHANGELOG.md"))
		mustContain(t, string(changelog), "v0.1.1")
		d.exit(old, "go tool acpgen generate --check", 0)
		d.must(old, "go build ./...")
		d.must(old, "go test ./...")
	})

	// Every command the doc shows is one this test ran.
	ran := map[string]bool{}
	for _, line := range *d.ran {
		ran[line] = true
	}
	for _, line := range shellBlocks(t, filepath.Join(repoRoot(t), "docs", "downstream.md"), "Using acpgen from another module (go generate)", testVersion) {
		if !ran[line] {
			t.Errorf("docs/downstream.md shows %q, which TestDownstream does not run", line)
		}
	}
}
