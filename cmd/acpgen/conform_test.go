package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestConformExitStatus runs the command as a user does: JSON output;
// status 3 exactly when a MUST case fails (the broken agent's overlay rules
// under --overlays strict), 4 when cases were blocked by an authentication
// refusal and none failed, 0 on the example agent, on the broken agent's
// SHOULD defects, on its crash on invalid params (a robustness case, MUST
// only with --robustness must) and once --auth-method unblocks it.
func TestConformExitStatus(t *testing.T) {
	bin := acpgenBinary(t)
	root, _ := filepath.Abs("../..")
	agents := t.TempDir()
	for _, pkg := range []string{"./examples/agent", "./conform/testdata/brokenagent"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(agents, filepath.Base(pkg)), pkg)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", pkg, err, out)
		}
	}
	for _, c := range []struct {
		agent string
		flags []string
		args  []string
		code  int
	}{
		{"agent", nil, nil, 0},
		{"brokenagent", nil, nil, 0},
		{"brokenagent", []string{"--overlays", "strict"}, []string{"-rfd"}, ExitStatusVerdict},
		{"brokenagent", nil, []string{"-auth"}, ExitStatusBlocked},
		{"brokenagent", []string{"--auth-method", "conform-key"}, []string{"-auth"}, 0},
		{"brokenagent", nil, []string{"-crash-on-nonobject-params"}, 0},
		{"brokenagent", []string{"--robustness", "must"}, []string{"-crash-on-nonobject-params"}, ExitStatusVerdict},
	} {
		args := append([]string{"conform", "agent", "--config", filepath.Join(root, "acpgen.json"), "--json",
			"--category", "methods", "--timeout", "3s"}, c.flags...)
		if len(c.args) > 0 && c.args[0] == "-rfd" {
			args = append(args, "--category", "rfd")
		}
		args = append(append(args, "--", filepath.Join(agents, c.agent)), c.args...)
		cmd := exec.Command(bin, args...)
		cmd.Dir = t.TempDir()
		out, err := cmd.Output()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != c.code {
			t.Errorf("%s %v %v: exit %d, want %d", c.agent, c.flags, c.args, code, c.code)
		}
		var rep struct {
			Results []struct{ Category, Verdict string }
		}
		if err := json.Unmarshal(out, &rep); err != nil || len(rep.Results) == 0 {
			t.Fatalf("%s: not a JSON report (%v): %.200s", c.agent, err, out)
		}
		for _, r := range rep.Results {
			if r.Category != "methods" && r.Category != "rfd" && r.Category != "initialize" && r.Category != "robustness" {
				t.Errorf("%s: category %s outside --category methods", c.agent, r.Category)
			}
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"conform", "agent"}, "no command given: acpgen conform agent"},
		{[]string{"conform", "agent", "--timeout", "0s", "--", "true"}, "--timeout 0s: a case needs a positive time limit"},
		{[]string{"conform", "nope"}, "acpgen: conform has no command \"nope\"\nrun 'acpgen conform --help' for usage\n"},
		{[]string{"conform", "agent", "--overlays", "loose", "--", "true"}, `--overlays "loose": the only mode is strict`},
		{[]string{"conform", "agent", "--robustness", "should", "--", "true"}, `--robustness "should": the only level is must`},
	} {
		cmd := exec.Command(bin, c.args...)
		cmd.Dir = t.TempDir() // no module: hints name plain acpgen
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) {
			t.Errorf("%v: %v %s; want %q", c.args, err, out, c.want)
		}
	}
}

// TestConformClientExitStatus: the client side as a user runs it, with the
// acpgen binary as the scripted agent's relay: status 3 exactly when a MUST
// case fails (the broken client's unknown-method answers), 0 on the example
// client and on v2's correct client.
func TestConformClientExitStatus(t *testing.T) {
	bin := acpgenBinary(t)
	root, _ := filepath.Abs("../..")
	clients := t.TempDir()
	for _, pkg := range []string{"./examples/client", "./conform/testdata/brokenclient"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(clients, filepath.Base(pkg)), pkg)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", pkg, err, out)
		}
	}
	for _, c := range []struct {
		channel string
		argv    []string
		code    int
	}{
		{"stable", []string{filepath.Join(clients, "client"), "-valid-only", "{agent}"}, 0},
		{"stable", []string{filepath.Join(clients, "brokenclient"), "-break", "unknown-result", "{agent}"}, ExitStatusVerdict},
		{"v2", []string{filepath.Join(clients, "brokenclient"), "-v2", "{agent}"}, 0},
		{"v2", []string{filepath.Join(clients, "brokenclient"), "-v2", "-break", "unknown-result", "{agent}"}, ExitStatusVerdict},
	} {
		args := append([]string{"conform", "client", "--config", filepath.Join(root, "acpgen.json"), "--json", "--channel", c.channel,
			"--category", "unknown-method", "--timeout", "10s", "--"}, c.argv...)
		name := c.channel + ": " + strings.Join(c.argv[1:], " ")
		cmd := exec.Command(bin, args...)
		cmd.Dir = t.TempDir()
		out, err := cmd.Output()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != c.code {
			t.Errorf("%s: exit %d, want %d", name, code, c.code)
		}
		var rep struct {
			Results []struct{ Category, Verdict string }
		}
		if err := json.Unmarshal(out, &rep); err != nil || len(rep.Results) != 2 {
			t.Fatalf("%s: not a JSON report of 2 cases (%v): %.300s", name, err, out)
		}
		for _, r := range rep.Results {
			if r.Category != "unknown-method" {
				t.Errorf("%s: category %s outside --category unknown-method", name, r.Category)
			}
		}
	}
	out, err := exec.Command(bin, "conform", "client", "--", "true").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "{agent}") {
		t.Errorf("no {agent}: %v %s", err, out)
	}
}
