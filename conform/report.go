package conform

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Verdict is a case's outcome.
type Verdict string

const (
	Pass    Verdict = "pass"
	Fail    Verdict = "fail"
	Warn    Verdict = "warn"
	Skipped Verdict = "skipped-by-capability"
	// Noted is an informational case whose observation differs from what
	// it describes: recorded, never judged.
	Noted Verdict = "noted"
	// Blocked is a case that could not run: the agent refused to create a
	// session until the client authenticates (-32000).
	Blocked Verdict = "blocked"
)

// Level is the requirement level of a case, as its source words it.
type Level string

const (
	Must   Level = "MUST"
	Should Level = "SHOULD"
	// Info is a case the spec does not rule on (ACP silent, or a rule of an
	// overlay not judged): reported, never judged.
	Info Level = "INFO"
)

// Result is one case's outcome.
type Result struct {
	Category string  `json:"category"`
	Case     string  `json:"case"`
	Level    Level   `json:"level"`
	Source   string  `json:"source"`
	Expected string  `json:"expected"`
	Observed string  `json:"observed"`
	Verdict  Verdict `json:"verdict"`

	kind string // the MUST kind (mustKinds) a MUST case judges, or the SHOULD kind (shouldKinds) of a SHOULD case
	// invalid marks a case that sends invalid input (a mutant, a malformed
	// line): a death on it is judged in the robustness group.
	invalid bool
}

// Report is one run.
type Report struct {
	Profile string   `json:"profile"`
	Command []string `json:"command"`
	Results []Result `json:"results"`
	// Crashes are the agent's deaths, each with the case it died on.
	Crashes []Crash `json:"crashes,omitempty"`
	// Hint says how to unblock blocked cases ("" when none is blocked).
	Hint string `json:"hint,omitempty"`
}

// Failed reports whether a MUST case failed: the run's exit status.
func (r *Report) Failed() bool {
	for _, c := range r.Results {
		if c.Verdict == Fail && c.Level == Must {
			return true
		}
	}
	return false
}

// Blocked reports whether a case was blocked (exit status 4 when no MUST
// case failed).
func (r *Report) Blocked() bool { return r.Counts()[Blocked] > 0 }

// Counts tallies the verdicts.
func (r *Report) Counts() map[Verdict]int {
	n := map[Verdict]int{}
	for _, c := range r.Results {
		n[c.Verdict]++
	}
	return n
}

// WriteJSON writes the report as one JSON document, with the verdict counts
// and whether a MUST case failed beside the results.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		*Report
		Counts  map[Verdict]int `json:"counts"`
		Failed  bool            `json:"failed"`
		Blocked bool            `json:"blocked"`
	}{r, r.Counts(), r.Failed(), r.Blocked()})
}

// WriteTable writes one table per category, in the order cases ran.
func (r *Report) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "profile: %s\n", r.Profile)
	var order []string
	by := map[string][]Result{}
	for _, c := range r.Results {
		if by[c.Category] == nil {
			order = append(order, c.Category)
		}
		by[c.Category] = append(by[c.Category], c)
	}
	for _, cat := range order {
		fmt.Fprintf(w, "\n== %s\n", cat)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "case\tlevel\tsource\texpected\tobserved\tverdict")
		for _, c := range by[cat] {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", c.Case, c.Level, c.Source, cell(c.Expected), cell(c.Observed), c.Verdict)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(r.Crashes) > 0 {
		fmt.Fprintln(w)
		writeCrashes(w, r.Crashes)
	}
	n := r.Counts()
	_, err := fmt.Fprintf(w, "\n%d cases: %d pass, %d fail, %d warn, %d skipped-by-capability, %d noted, %d blocked\n",
		len(r.Results), n[Pass], n[Fail], n[Warn], n[Skipped], n[Noted], n[Blocked])
	if err == nil && r.Hint != "" {
		_, err = fmt.Fprintf(w, "blocked: %s\n", r.Hint)
	}
	return err
}

// cell keeps a table cell on one line and short.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 90 {
		s = s[:87] + "..."
	}
	return s
}
