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
)

// Level is the requirement level of a case, as its source words it.
type Level string

const (
	Must   Level = "MUST"
	Should Level = "SHOULD"
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
}

// Report is one run.
type Report struct {
	Profile string   `json:"profile"`
	Command []string `json:"command"`
	Results []Result `json:"results"`
	// Crashes are the agent's deaths, each with the case it died on.
	Crashes []Crash `json:"crashes,omitempty"`
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
		Counts map[Verdict]int `json:"counts"`
		Failed bool            `json:"failed"`
	}{r, r.Counts(), r.Failed()})
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
		fmt.Fprintln(tw, "case\tlevel\texpected\tobserved\tverdict")
		for _, c := range by[cat] {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.Case, c.Level, cell(c.Expected), cell(c.Observed), c.Verdict)
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
	_, err := fmt.Fprintf(w, "\n%d cases: %d pass, %d fail, %d warn, %d skipped-by-capability\n",
		len(r.Results), n[Pass], n[Fail], n[Warn], n[Skipped])
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
