package interop

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

var (
	acpgenOnce sync.Once
	acpgenBin  string
	acpgenErr  error
)

// acpgenBinary builds cmd/acpgen once per test run, beside the examples.
func acpgenBinary(t *testing.T) string {
	t.Helper()
	binaries(t) // makes binDir
	acpgenOnce.Do(func() {
		acpgenBin = filepath.Join(binDir, "acpgen")
		if out, err := exec.Command("go", "build", "-o", acpgenBin, "../cmd/acpgen").CombinedOutput(); err != nil {
			acpgenErr = fmt.Errorf("go build cmd/acpgen: %v\n%s", err, out)
		}
	})
	if acpgenErr != nil {
		t.Fatal(acpgenErr)
	}
	return acpgenBin
}

// inspected wraps argv in `acpgen inspect --trace`, as an executable script
// for the TypeScript clients (which spawn one path without arguments), and
// returns the script, the argv and the trace file.
func inspected(t *testing.T, argv ...string) (script string, wrapped []string, trace string) {
	t.Helper()
	dir := t.TempDir()
	trace = filepath.Join(dir, "trace.jsonl")
	wrapped = append([]string{acpgenBinary(t), "inspect", "--trace", trace, "--"}, argv...)
	quoted := make([]string, len(wrapped))
	for i, a := range wrapped {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	script = filepath.Join(dir, "agent.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexec "+strings.Join(quoted, " ")+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return script, wrapped, trace
}

// traceFindings reads the findings of a trace as "direction method pointer".
func traceFindings(t *testing.T, trace string) []string {
	t.Helper()
	f, err := os.Open(trace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r struct {
			Findings []struct {
				Direction, Method, Pointer string
			} `json:"findings"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("trace line: %v", err)
		}
		for _, f := range r.Findings {
			out = append(out, f.Direction+" "+f.Method+" "+f.Pointer)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// The TypeScript SDK's peers through `acpgen inspect`: every finding is one
// of the interop scripts' deliberate defects (named below with the step that
// sends it), none is a deviation of the SDK itself, and each deliberate
// defect is found.
func TestInspectTypeScriptPeers(t *testing.T) {
	requireSDK(t)
	agent, client := binaries(t)
	cwd, dirs := roots(t)
	relativeRoots := []string{ // ts-client.mjs step "relative roots"
		"client->agent session/new /params/cwd",
		"client->agent session/new /params/additionalDirectories/0",
	}
	textless := "client->agent session/prompt /params/prompt/0/text" // step "invalid params"
	unknown := "client->agent session/telepathy /method"             // step "unknown method"
	cases := []struct {
		name string
		run  func(t *testing.T) (trace string, err error)
		want []string
	}{
		{"ts-client to examples/agent", func(t *testing.T) (string, error) {
			script, _, trace := inspected(t, agent)
			_, err := run(t, "node", append([]string{"ts-client.mjs", script, cwd}, dirs...)...)
			return trace, err
		}, append(relativeRoots, textless, unknown)},
		{"ts-v2-client to examples/agent", func(t *testing.T) (string, error) {
			script, _, trace := inspected(t, agent)
			_, err := run(t, "node", append([]string{"ts-v2-client.mjs", script, cwd}, dirs...)...)
			return trace, err
		}, []string{textless}},
		{"examples/client to ts-agent", func(t *testing.T) (string, error) {
			_, argv, trace := inspected(t, "node", "ts-agent.mjs")
			_, err := run(t, client, append([]string{"-cwd", cwd, "-add-dir", dirs[0], "-add-dir", dirs[1]}, argv...)...)
			return trace, err
		}, []string{textless}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			trace, err := c.run(t)
			if err != nil {
				t.Fatalf("session through inspect: %v", err)
			}
			got := traceFindings(t, trace)
			slices.Sort(got)
			want := slices.Clone(c.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("findings:\n  %s\nwant (the scripts' deliberate defects):\n  %s",
					strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
		})
	}
}
