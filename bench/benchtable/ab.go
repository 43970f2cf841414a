package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// abRow is one row of benchstat's comparison of the A/B's two sides: the
// medians, benchstat's change ("~" when not significant, else a signed
// percentage) and its p-value and sample count.
type abRow struct {
	old, new float64
	change   string
	p        string
}

// abStats is benchstat's CSV output: its rows by unit and then by
// benchmark name (without its -GOMAXPROCS suffix), and the two sides'
// commits (the ab-old and ab-new configuration lines).
type abStats struct {
	units   map[string]map[string]abRow
	commits map[string]string // side -> abbreviated hash
}

var procs = regexp.MustCompile(`-\d+$`)

// readAB reads benchstat's CSV output (benchstat -col /side -format csv):
// tables of a two-line header (the columns, old and new; the unit) and
// rows of name, old, CI, new, CI, change, p.
func readAB(file string) (abStats, error) {
	f, err := os.Open(file)
	if err != nil {
		return abStats{}, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	stats := abStats{units: map[string]map[string]abRow{}, commits: map[string]string{}}
	var cols []string // the current table's column names
	var unit string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return abStats{}, fmt.Errorf("%s: %w", file, err)
		}
		switch {
		case len(rec) == 1 && strings.HasPrefix(rec[0], "ab-"):
			side, commit, _ := strings.Cut(strings.TrimPrefix(rec[0], "ab-"), ": ")
			stats.commits[side] = commit[:min(len(commit), 7)]
		case len(rec) < 7 || rec[0] == "geomean":
			// another configuration line (goos: ...), a table's geometric mean
		case rec[0] == "" && rec[2] == "CI":
			unit = rec[1]
			if stats.units[unit] == nil {
				stats.units[unit] = map[string]abRow{}
			}
		case rec[0] == "":
			cols = rec
		default:
			if cols == nil || unit == "" || cols[1] != "old" || cols[3] != "new" {
				return abStats{}, fmt.Errorf("%s: row %q outside an old-new table", file, rec[0])
			}
			row, err := parseABRow(rec)
			if err != nil {
				return abStats{}, fmt.Errorf("%s: %w", file, err)
			}
			stats.units[unit][procs.ReplaceAllString(rec[0], "")] = row
		}
	}
	return stats, nil
}

func parseABRow(rec []string) (abRow, error) {
	old, err := strconv.ParseFloat(rec[1], 64)
	if err != nil {
		return abRow{}, fmt.Errorf("row %q: %w", rec[0], err)
	}
	new, err := strconv.ParseFloat(rec[3], 64)
	if err != nil {
		return abRow{}, fmt.Errorf("row %q: %w", rec[0], err)
	}
	return abRow{old: old, new: new, change: rec[5], p: rec[6]}, nil
}

// get is the row of one benchmark in one unit, and whether there is one.
func (s abStats) get(unit, name string) (abRow, bool) {
	r, ok := s.units[unit][name]
	return r, ok
}

// slower says whether benchstat found the new side significantly slower
// (or bigger): a positive change; "~" is no significant difference.
func (r abRow) slower() bool { return strings.HasPrefix(r.change, "+") }

// stat is the change and p-value as one cell.
func (r abRow) stat() string {
	if r.p == "" {
		return r.change
	}
	return r.change + " (" + r.p + ")"
}

// abTables prints the A/B of the old and the new generated code.
func abTables(w io.Writer, s abStats) {
	fmt.Fprintln(w, "\nA/B of the old and the new generated code (bench/peer/ab; medians, benchstat's change where significant, else ~):")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| measure | old | new | new ÷ old | benchstat | target |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	fmt.Fprintf(w, "| commit | %s | %s | | | |\n", s.commits["old"], s.commits["new"])
	row := func(what, unit, name string, scale float64, format, target string, met bool) {
		r, ok := s.get(unit, name)
		if !ok {
			return
		}
		if target != "" {
			target += ": " + verdict(met)
		}
		fmt.Fprintf(w, "| %s | "+format+" | "+format+" | %.2f | %s | %s |\n", what, r.old/scale, r.new/scale, r.new/r.old, r.stat(), target)
	}
	funcs, _ := s.get("funcs", "ABGenerated")
	row("function declarations, generated packages (non-test files)", "funcs", "ABGenerated", 1, "%.0f", "≤ 0.50", funcs.new <= funcs.old/2)
	row("lines, generated packages (non-test files)", "lines", "ABGenerated", 1, "%.0f", "", false)
	row("compile of gen/acp, wall", "sec/op", "ABCompile", 1, "%.2f s", "", false)
	row("compile of gen/acp, CPU (user+sys)", "cpu-sec/op", "ABCompile", 1, "%.2f s", "", false)
	row("compiler peak RSS, gen/acp", "peak-RSS-B", "ABCompile", 1<<20, "%.1f MB", "", false)
	row("compiled archive of gen/acp", "archive-B", "ABCompile", 1e6, "%.2f MB", "", false)
	row("minimal agent binary", "minimal-agent-B", "ABBinary", 1e6, "%.3f MB", "", false)
	for _, u := range []struct{ what, unit string }{{"wall", "sec/op"}, {"CPU", "cpu-sec/op"}} {
		r, _ := s.get(u.unit, "ABGenerateCheck")
		row("`acpgen generate --check`, "+u.what, u.unit, "ABGenerateCheck", 1, "%.2f s", "no slower", !r.slower())
	}
	row("`acpgen generate --check`, peak RSS", "peak-RSS-B", "ABGenerateCheck", 1<<20, "%.1f MB", "", false)
	codecTable(w, s)
}

// codecTable prints the A/B's decode+Validate and encode of each message.
func codecTable(w io.Writer, s abStats) {
	fmt.Fprintln(w, "\nA/B decode+Validate and encode of the messages (bench/peer/ab, old and new in adjacent turns), µs/op (allocs/op), medians:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| message | operation | old | new | benchstat | target: no significant slowdown |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, m := range []string{"session_new", "prompt", "update"} {
		for _, op := range []string{"decode+validate", "encode"} {
			name := "ABCodec/msg=" + m + "/op=" + op
			t, ok := s.get("sec/op", name)
			if !ok {
				continue
			}
			a, _ := s.get("allocs/op", name)
			fmt.Fprintf(w, "| %s | %s | %.3f (%.0f) | %.3f (%.0f) | %s | %s |\n", m, op,
				t.old*1e6, a.old, t.new*1e6, a.new, t.stat(), verdict(!t.slower()))
		}
	}
}
