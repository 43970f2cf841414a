//go:build unix

package inspect

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/acpgen/acpgen/internal/pinned"
)

var (
	buildMu  sync.Mutex
	builtDir string
	built    = map[string]string{}
)

// programs builds commands of this module once per test binary.
func program(t *testing.T, pkg string) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if bin, ok := built[pkg]; ok {
		return bin
	}
	if builtDir == "" {
		dir, err := os.MkdirTemp("", "acpgen-inspect-test-")
		if err != nil {
			t.Fatal(err)
		}
		builtDir = dir
	}
	bin := filepath.Join(builtDir, strings.ReplaceAll(strings.Trim(pkg, "./"), "/", "_"))
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir = pinned.Root(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	built[pkg] = bin
	return bin
}

// throughInspector runs examples/client with clientArgs through the inspector (this
// test binary) to agent, and returns the trace's records and the client's
// output. The client and everything it started run in their own process
// group, killed at the end.
func throughInspector(t *testing.T, clientArgs []string, agent ...string) ([]Record, string) {
	t.Helper()
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace.jsonl")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(pinned.Root(t), "acpgen.json")
	args := append([]string{"-cwd", dir, "-timeout", "60s"}, clientArgs...)
	args = append(append(args, self, "-helper=inspect:"+config+":"+trace, "--"), agent...)
	out := runGroup(t, exec.Command(program(t, "./examples/client"), args...))
	f, err := os.Open(trace)
	if err != nil {
		t.Fatalf("no trace: %v\nclient: %s", err, out)
	}
	defer f.Close()
	recs, err := ReadTrace(f, trace)
	if err != nil {
		t.Fatal(err)
	}
	return recs, string(out)
}

// runGroup runs cmd in a process group of its own, killed once cmd exits
// (an agent that ignores the end of its stdin included), and returns its
// output. The output goes to a file, so that waiting for cmd does not wait
// for whatever it started and left holding the output.
func runGroup(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	b, _ := os.ReadFile(f.Name())
	return string(b)
}

func findingsOf(recs []Record) []Finding {
	var out []Finding
	for _, r := range recs {
		out = append(out, r.Findings...)
	}
	return out
}

// examples/client -valid-only through the inspector to examples/agent: no
// finding, and the bytes each side wrote are the bytes the other read (a
// plain tap on each side of the inspector hashes both directions).
func TestExampleSessionUnchangedNoFinding(t *testing.T) {
	dir := t.TempDir()
	self, _ := os.Executable()
	outer, inner := filepath.Join(dir, "outer"), filepath.Join(dir, "inner")
	recs, out := throughInspector(t, []string{"-valid-only"},
		program(t, "./examples/agent"))
	if !strings.Contains(out, "ok exit:") {
		t.Fatalf("the client's flow failed through the inspector:\n%s", out)
	}
	for _, f := range findingsOf(recs) {
		t.Errorf("finding on a valid session: %s", f)
	}
	if len(recs) < 10 {
		t.Errorf("%d frames traced, want the whole flow", len(recs))
	}
	// The same flow with a tap on each side of the inspector.
	trace := filepath.Join(dir, "t.jsonl")
	config := filepath.Join(pinned.Root(t), "acpgen.json")
	cmd := exec.Command(program(t, "./examples/client"), "-cwd", dir, "-timeout", "60s", "-valid-only",
		self, "-helper=record:"+outer, "--",
		self, "-helper=inspect:"+config+":"+trace, "--",
		self, "-helper=record:"+inner, "--",
		program(t, "./examples/agent"))
	if b := runGroup(t, cmd); cmd.ProcessState.ExitCode() != 0 {
		t.Fatalf("client through two taps and the inspector: %v\n%s", cmd.ProcessState, b)
	}
	o, _ := os.ReadFile(outer)
	i, _ := os.ReadFile(inner)
	if len(o) == 0 || string(o) != string(i) {
		t.Errorf("bytes changed by the inspector:\nclient side %s\nagent side  %s", o, i)
	}
}

// examples/client without -valid-only sends a prompt whose text block has
// no text: the inspector names the schema rule at its pointer.
func TestInvalidPromptFound(t *testing.T) {
	recs, out := throughInspector(t, nil, program(t, "./examples/agent"))
	fs := findingsOf(recs)
	if len(fs) != 1 || fs[0].Rule != ruleSchema.name || fs[0].Direction != ToAgent || fs[0].Method != "session/prompt" ||
		!strings.HasPrefix(fs[0].Pointer, "/params/prompt/0") {
		t.Fatalf("findings %v, want one %q on the client's session/prompt at /params/prompt/0\nclient:\n%s", fs, ruleSchema.name, out)
	}
}

// conform's broken agent, with defects the inspector sees in a client's
// ordinary flow: each finding names its rule.
func TestBrokenAgentFindings(t *testing.T) {
	recs, out := throughInspector(t, nil, program(t, "./conform/testdata/brokenagent"), "-late", "-textless-chunk", "-unknown-notification")
	got := map[string]bool{}
	for _, f := range findingsOf(recs) {
		got[f.Rule] = true
	}
	want := []string{
		ruleSchema.name,      // -textless-chunk: a text block without text
		ruleTurnOrder.name,   // -late: a chunk after the prompt's response
		ruleUnknownSent.name, // -unknown-notification
	}
	var missing []string
	for _, w := range want {
		if !got[w] {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		names := make([]string, 0, len(got))
		for n := range got {
			names = append(names, n)
		}
		slices.Sort(names)
		t.Fatalf("missing rules %q; found %q\nclient:\n%s", missing, names, out)
	}
}
