package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator/config"
)

// shellBlocks returns the command lines of the sh code blocks in the
// section of the Markdown file that the heading starts, up to the next
// heading: comments and blank lines dropped, VERSION replaced by version.
func shellBlocks(t *testing.T, file, heading, version string) []string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	in, block := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "#") && !block:
			if in {
				return lines
			}
			in = strings.TrimSpace(strings.TrimLeft(line, "#")) == heading
		case in && line == "```sh":
			block = true
		case in && block && line == "```":
			block = false
		case in && block:
			if cmd := strings.TrimSpace(stripComment(line)); cmd != "" {
				lines = append(lines, strings.ReplaceAll(cmd, "@VERSION", "@"+version))
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(lines) == 0 {
		t.Fatalf("%s: no sh block under %q", file, heading)
	}
	return lines
}

// stripComment drops a trailing "# ..." comment that is outside quotes.
func stripComment(line string) string {
	quote := byte(0)
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '#' && (i == 0 || line[i-1] == ' '):
			return line[:i]
		}
	}
	return line
}

// TestReadmeQuickStart runs the README's install and quick start as written,
// as one bash script, in a new folder beside a link named acpgen to this
// checkout, with empty module and schema caches: a command that fails, or
// the conform run that finds a MUST failure, fails the test.
func TestReadmeQuickStart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds modules with the go command and fetches their dependencies")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not on the PATH")
	}
	base, out := runDocSection(t, "README.md", "Install and quick start")
	mustContain(t, string(out), ", 0 fail,")
	// The starter's turn lasts long enough for conform's cancel to end it.
	if !regexp.MustCompile(`(?m)^session/cancel ends the turn .* pass$`).Match(out) {
		t.Errorf("conform's cancel case did not pass on the scaffolded agent:\n%s", out)
	}
	// init fetched the release (README says so), before writing acpgen.json;
	// generate found it in the cache.
	fetch := "acpgen: fetching @agentclientprotocol/sdk@" + config.TestedVersion + " (npm)"
	if n, i, j := strings.Count(string(out), fetch), strings.Index(string(out), fetch), strings.Index(string(out), "wrote acpgen.json"); n != 1 || i > j {
		t.Errorf("want %q once, before init's \"wrote acpgen.json\":\n%s", fetch, out)
	}
	for _, f := range []string{"downstream/acp/types.go", "downstream/cmd/my-agent/bin/my-agent", "my-client/go.mod", "my-net-client/main.go"} {
		if _, err := os.Stat(filepath.Join(base, f)); err != nil {
			t.Errorf("after the quick start: %v", err)
		}
	}
	if src, _ := os.ReadFile(filepath.Join(base, "my-net-client", "main.go")); !strings.Contains(string(src), "acphttp.Dial(") {
		t.Errorf("scaffold client --http wrote no network client:\n%s", src)
	}
}

// The binary README's quick start builds lies where the scaffolded agent's
// .gitignore ignores it.
func TestReadmeBuildPathIgnored(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not on the PATH")
	}
	var out, bin string
	for _, line := range shellBlocks(t, filepath.Join(repoRoot(t), "README.md"), "Install and quick start", testVersion) {
		f := strings.Fields(line)
		switch {
		case len(f) > 5 && strings.Join(f[:5], " ") == "go tool acpgen scaffold agent" && f[5] == "--out":
			out = f[6]
		case len(f) > 3 && f[0] == "go" && f[1] == "build" && f[2] == "-o":
			bin = f[3]
		}
	}
	if out == "" || bin == "" {
		t.Fatalf("no scaffold agent --out and go build -o in README's quick start (%q, %q)", out, bin)
	}
	mod := t.TempDir()
	os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module example.com/downstream\n\ngo 1.26\n\nrequire github.com/acpgen/acpgen v0.0.0\n"), 0o644)
	if o, err := runIn(t, mod, "scaffold", "agent", "--out", out, "--import", "example.com/downstream/acp"); err != nil {
		t.Fatalf("%v\n%s", err, o)
	}
	if o, err := exec.Command(git, "-C", mod, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, o)
	}
	if o, err := exec.Command(git, "-C", mod, "check-ignore", "-q", bin).CombinedOutput(); err != nil {
		t.Errorf("README builds %s, which the scaffold's .gitignore does not ignore: %v\n%s", bin, err, o)
	}
}

// TestProxyQuickStart runs docs/proxies.md's "A proxy in a new module" as
// written, as TestReadmeQuickStart does: the scaffolded proxy carries
// examples/client's whole flow to examples/agent, transparently and as a
// component under acpgen conduct.
func TestProxyQuickStart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds modules with the go command and fetches their dependencies")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not on the PATH")
	}
	_, out := runDocSection(t, filepath.Join("docs", "proxies.md"), "A proxy in a new module")
	text := string(out)
	for _, want := range []string{"ok session/prompt: stopReason=end_turn", "ok session/cancel: stopReason=cancelled", "ok exit: agent exited with status 0"} {
		if n := strings.Count(text, want); n != 2 {
			t.Errorf("%q %d times, want once a run:\n%s", want, n, text)
		}
	}
	if !regexp.MustCompile(`(?m)^time=\S+ level=INFO msg="session total"`).MatchString(text) ||
		!regexp.MustCompile(`(?m)^\[1 my-proxy\] time=\S+ level=INFO msg="session total"`).MatchString(text) {
		t.Errorf("the proxy's session total, alone and under the conductor:\n%s", text)
	}
}

// runDocSection runs the sh blocks of a section of a Markdown file of this
// checkout as one bash script, in a new folder beside a link named acpgen
// to the checkout, with empty module and schema caches; a command that
// fails fails the test. It returns the folder and the script's output.
func runDocSection(t *testing.T, file, heading string) (base string, out []byte) {
	t.Helper()
	repo := repoRoot(t)
	cmds := shellBlocks(t, filepath.Join(repo, file), heading, testVersion)
	base = t.TempDir()
	if err := os.Symlink(repo, filepath.Join(base, "acpgen")); err != nil {
		t.Fatal(err)
	}
	d := newDownstream(t, repo)
	script := "set -euo pipefail\n" + strings.Join(cmds, "\n") + "\n"
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir, cmd.Env = base, d.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s, %q: %v\n%s", file, heading, err, out)
	}
	return base, out
}
