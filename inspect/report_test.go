package inspect

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acpgen/acpgen/internal/pinned"
)

var update = flag.Bool("update", false, "rewrite docs/inspect-report.png from the headless-browser test")

// reportScript is the session of the report tests and the docs' screenshot:
// the valid v1 session, then a prompt without text and a chunk after its
// turn's response.
var reportScript = append(slices.Clone(v1Session),
	`> {"jsonrpc":"2.0","id":6,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text"}]}}`,
	`< {"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Invalid params"}}`,
	`> {"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"bye"}]}}`,
	`< {"jsonrpc":"2.0","id":7,"result":{"stopReason":"end_turn"}}`,
	`< {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"late"}}}}`,
)

// scriptTrace runs a script through a sink on a clock that advances 7 ms a
// frame, and returns the trace it writes.
func scriptTrace(t *testing.T, script []step) []byte {
	t.Helper()
	var trace bytes.Buffer
	c := NewChecker(testProfiles(t))
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c.now = func() time.Time { return clock }
	s := stream{sink: newSink(&bytes.Buffer{}, &trace), checker: c}
	s.now = c.now
	for _, st := range script {
		dir := ToAgent
		if strings.HasPrefix(st, "< ") {
			dir = ToClient
		}
		clock = clock.Add(7 * time.Millisecond)
		s.observe(dir, []byte(st[2:]), len(st)-2)
	}
	return trace.Bytes()
}

func writeReport(t *testing.T, dir string) string {
	t.Helper()
	trace := filepath.Join(dir, "session.jsonl")
	if err := os.WriteFile(trace, scriptTrace(t, reportScript), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "session.html")
	if err := Report(trace, ""); err != nil {
		t.Fatal(err)
	}
	return out
}

// The page stands alone: no URL it would load, a timeline group per
// request, every finding with its rule.
func TestReportSelfContained(t *testing.T) {
	page, err := os.ReadFile(writeReport(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`(?i)(src|href)\s*=|https?:|url\(|@import`).Find(page); m != nil {
		t.Errorf("the page refers to something outside it: %q", m)
	}
	for _, want := range []string{ruleSchema.name, ruleTurnOrder.name, `data-session="s1"`, "cancelled", "ms</span>"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("page lacks %q", want)
		}
	}
	if err := Report(filepath.Join(t.TempDir(), "none.jsonl"), ""); err == nil {
		t.Error("a missing trace: no error")
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	_ = os.WriteFile(bad, []byte("{}\nnot json\n"), 0o644)
	if err := Report(bad, ""); err == nil || !strings.Contains(err.Error(), "bad.jsonl:2") {
		t.Errorf("a bad trace line: %v, want an error naming bad.jsonl:2", err)
	}
	if _, err := os.Stat(strings.TrimSuffix(bad, ".jsonl") + ".html"); err == nil {
		t.Error("a report was written for a bad trace")
	}
}

// chromium finds Debian's Chromium; without it the browser test is skipped,
// unless CI=true (test.sh installs it where it may).
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium on PATH: test.sh installs it as root or with sudo (apt-get install chromium)")
	}
	t.Skip("no chromium on PATH")
	return ""
}

// headless runs Chromium on the page with extra arguments and returns its
// standard output.
func headless(t *testing.T, bin string, args ...string) string {
	t.Helper()
	args = append([]string{"--headless", "--no-sandbox", "--disable-background-networking", "--disable-gpu",
		"--user-data-dir=" + t.TempDir()}, args...)
	cmd := exec.Command(bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %q: %v\n%s", args, err, errb.String())
	}
	return out.String()
}

// The page rendered in a real headless browser: its rows and a finding are
// in the DOM, the script ran (the filters from the URL applied, a raw frame
// shown), and a screenshot is kept.
func TestReportRendersInBrowser(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	page := writeReport(t, dir)
	url := "file://" + page
	dom := headless(t, bin, "--dump-dom", url)
	if n := strings.Count(dom, `<tr class="row`); n != len(reportScript) {
		t.Errorf("%d rows rendered, want %d", n, len(reportScript))
	}
	if !strings.Contains(dom, ruleTurnOrder.name) || !strings.Contains(dom, `class="row update finding"`) {
		t.Error("the late update's finding is not rendered")
	}
	if want := regexp.MustCompile(`<span id="shown">(\d+) frames shown</span>`).FindStringSubmatch(dom); want == nil || want[1] != strconv.Itoa(len(reportScript)) {
		t.Errorf("the script did not count the frames shown: %v", want)
	}
	// Filtered to one method with a raw frame open.
	dom = headless(t, bin, "--dump-dom", url+"?method=session/cancel&raw=15")
	if want := regexp.MustCompile(`<span id="shown">(\d+) frames shown</span>`).FindStringSubmatch(dom); want == nil || want[1] != "1" {
		t.Errorf("method filter: %v frames shown, want 1", want)
	}
	if !strings.Contains(dom, `<tr class="raw" data-raw="15">`) || !strings.Contains(dom, `&#34;method&#34;: &#34;session/cancel&#34;`) && !strings.Contains(dom, `"method": "session/cancel"`) {
		t.Error("the raw frame 15 (the cancel) is not shown")
	}
	// Kept after the test, as its artefact.
	shot := filepath.Join(os.TempDir(), "acpgen-inspect-report.png")
	headless(t, bin, "--screenshot="+shot, "--window-size=1200,1400", "--hide-scrollbars", url)
	png, err := os.ReadFile(shot)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("no screenshot: %v", err)
	}
	t.Logf("screenshot: %s", shot)
	if *update {
		if err := os.WriteFile(filepath.Join(pinned.Root(t), "docs", "inspect-report.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
