// Package examples holds example programs built on the generated package
// gen/acp; this test runs them against each other. interop/ runs each of
// them against the official TypeScript SDK.
package examples

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestGoClientDrivesGoAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example binaries")
	}
	bin := t.TempDir()
	for _, name := range []string{"agent", "client"} {
		if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, name), "./"+name).CombinedOutput(); err != nil {
			t.Fatalf("go build ./%s: %v\n%s", name, err, out)
		}
	}
	base := t.TempDir()
	cwd, lib := filepath.Join(base, "work"), filepath.Join(base, "lib")
	os.Mkdir(cwd, 0o755)
	os.Mkdir(lib, 0o755)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// lib twice and cwd once more: the client's DedupeAdditionalDirectories
	// leaves lib alone.
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "client"), "-cwd", cwd, "-add-dir", lib, "-add-dir", cwd, "-add-dir", lib, filepath.Join(bin, "agent"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	want := []string{
		"ok initialize: protocolVersion=1 agent=acpgen-example-agent additionalDirectories=true runtimeContext=true",
		"ok session/new: sessionId=sess-1 roots=" + cwd + "," + lib,
		`ok session/prompt: stopReason=end_turn chunks=4 text="hello streamed world"`,
		`ok session/cancel: stopReason=cancelled after streaming "before"`,
		"ok invalid params: session/prompt without text answered -32602",
		"ok history: 2 turns recorded, none with runtimeContext",
		"ok exit: agent exited with status 0",
	}
	if got := strings.Split(strings.TrimSpace(string(out)), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("client printed:\n%s\nwant:\n%s", out, strings.Join(want, "\n"))
	}
}
