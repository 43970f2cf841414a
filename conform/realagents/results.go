//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/acpgen/acpgen/internal/atomicfile"
)

// Results is what one scoring run saw: results.json.
type Results struct {
	Node    string `json:"node"`    // `node --version` the agents ran on
	Date    string `json:"date"`    // the day of the run (UTC)
	Timeout string `json:"timeout"` // conform's per-case --timeout
	// MustKinds is conform.MustKindsFingerprint of the acpgen that scored
	// the agents: TestResultsCurrent fails once the MUST kinds change.
	MustKinds string `json:"mustKinds"`
	Runs      []Run  `json:"runs"`
}

// Run is one conform run on one agent and channel.
type Run struct {
	Agent     string   `json:"agent"`
	Package   string   `json:"package"`
	Requested string   `json:"requested"` // the version asked for
	Version   string   `json:"version"`   // the version installed
	Command   []string `json:"command"`   // relative to the npm prefix
	Channel   string   `json:"channel"`
	Profile   string   `json:"profile,omitempty"`
	// Negotiated is the version the agent answered an initialize for the
	// unsupported version 65535 with (0: no answer).
	Negotiated int `json:"negotiated,omitempty"`
	Exit       int `json:"exit"`
	// Verdict is pass (exit 0), fail (3: a MUST case failed), blocked (4:
	// the agent wants authentication), error (another status) or not run.
	Verdict string         `json:"verdict"`
	NotRun  string         `json:"notRun,omitempty"` // why it did not run
	Hint    string         `json:"hint,omitempty"`   // conform's unblocking hint
	Counts  map[string]int `json:"counts,omitempty"`
	Blocked []Case         `json:"blocked,omitempty"`
	Failing []Case         `json:"failing,omitempty"` // MUST and SHOULD cases that failed
}

// Case is one case of conform's report.
type Case struct {
	Category string `json:"category"`
	Case     string `json:"case"`
	Level    string `json:"level"`
	Source   string `json:"source"`
	Observed string `json:"observed"`
}

// report is the part of `acpgen conform agent --json` the runs keep.
type report struct {
	Profile string `json:"profile"`
	Results []struct {
		Case
		Verdict string `json:"verdict"`
	} `json:"results"`
	Hint   string         `json:"hint"`
	Counts map[string]int `json:"counts"`
}

// verdicts names conform's exit statuses.
var verdicts = map[int]string{0: "pass", 3: "fail", 4: "blocked"}

// fill sets the run's outcome from conform's exit status and JSON report.
func (r *Run) fill(exit int, out []byte) error {
	var rep report
	if err := json.Unmarshal(out, &rep); err != nil {
		return fmt.Errorf("conform's report: %w", err)
	}
	r.Exit, r.Profile, r.Hint, r.Counts = exit, rep.Profile, rep.Hint, rep.Counts
	r.Verdict = verdicts[exit]
	if r.Verdict == "" {
		r.Verdict = "error"
	}
	for _, c := range rep.Results {
		if c.Category == "initialize" && strings.HasPrefix(c.Case.Case, "protocolVersion 65535") {
			_, _ = fmt.Sscanf(c.Observed, "protocolVersion %d", &r.Negotiated)
		}
		switch c.Verdict {
		case "blocked":
			r.Blocked = append(r.Blocked, c.Case)
		case "fail":
			r.Failing = append(r.Failing, c.Case)
		}
	}
	return nil
}

// merge returns res's runs with agent's replaced by runs, in place.
func (res *Results) merge(agent string, runs []Run) []Run {
	var out []Run
	done := false
	for _, r := range res.Runs {
		if r.Agent != agent {
			out = append(out, r)
		} else if !done {
			out, done = append(out, runs...), true
		}
	}
	if !done {
		out = append(out, runs...)
	}
	return out
}

func readResults(path string) (*Results, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var res Results
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &res, nil
}

func (res *Results) write(path string) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		return err
	}
	return atomicfile.Write(path, b.Bytes(), 0o644)
}
