//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/acpgen/acpgen/internal/atomicfile"
)

// The markers around the rendered table in docs/conform.md.
const (
	beginMark = "<!-- realagents: rendered from conform/realagents/results.json; TestDocTable checks it, go test ./conform/realagents -update rewrites it -->"
	endMark   = "<!-- realagents end -->"
)

// moduleRoot is the folder of the module's go.mod.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := command(ctx, "", nil, "go", "env", "GOMOD")
	if err != nil {
		return "", err
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("run it inside the acpgen module")
	}
	return filepath.Dir(gomod), nil
}

// updateDoc renders res into the Markdown file doc, between the markers.
func updateDoc(doc string, res *Results) error {
	b, err := os.ReadFile(doc)
	if err != nil {
		return err
	}
	table, err := render(res)
	if err != nil {
		return err
	}
	out, err := splice(b, table)
	if err != nil {
		return fmt.Errorf("%s: %w", doc, err)
	}
	return atomicfile.Write(doc, out, 0o644)
}

// splice replaces what lies between the markers of doc with table.
func splice(doc []byte, table string) ([]byte, error) {
	start := bytes.Index(doc, []byte(beginMark))
	if start < 0 {
		return nil, fmt.Errorf("no line %q", beginMark)
	}
	start += len(beginMark)
	n := bytes.Index(doc[start:], []byte(endMark))
	if n < 0 {
		return nil, fmt.Errorf("no line %q after the first marker", endMark)
	}
	return slices.Concat(doc[:start], []byte("\n"+table), doc[start+n:]), nil
}

// tableOf returns what lies between the markers of doc.
func tableOf(doc []byte) (string, error) {
	_, rest, ok := bytes.Cut(doc, []byte(beginMark))
	if !ok {
		return "", fmt.Errorf("no line %q", beginMark)
	}
	table, _, ok := bytes.Cut(rest, []byte(endMark))
	if !ok {
		return "", fmt.Errorf("no line %q after the first marker", endMark)
	}
	return strings.TrimPrefix(string(table), "\n"), nil
}

// render writes the two tables: one row per run, then one per failing case
// with whose defect it is (defects).
func render(res *Results) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Scored %s on node %s, conform `--timeout %s`, no credentials, a clean HOME:\n\n", res.Date, res.Node, res.Timeout)
	b.WriteString("| agent | package | version | channel | exit | verdict | blocked cases | failing MUST | failing SHOULD |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range res.Runs {
		must, should := 0, 0
		for _, c := range r.Failing {
			if c.Level == "MUST" {
				must++
			} else {
				should++
			}
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s | %s | %s | %d | %d | %d |\n", r.Agent, r.Package, version(r),
			r.Channel, exitOf(r), cell(verdictOf(r), 160), len(r.Blocked), must, should)
	}
	rows, err := failingRows(res.Runs)
	if err != nil {
		return "", err
	}
	if rows != "" {
		b.WriteString("\n| agent | channel | failing case | level | source | observed | whose defect |\n|---|---|---|---|---|---|---|\n")
		b.WriteString(rows)
	}
	return b.String(), nil
}

// failingRows is one row per failing case, with the defect it shows; a
// failing case without a defect, and a defect no case shows, is an error.
func failingRows(runs []Run) (string, error) {
	var b strings.Builder
	used := make([]bool, len(defects))
	var errs []error
	for _, r := range runs {
		for _, c := range r.Failing {
			i := defectOf(r.Agent, c)
			if i < 0 {
				errs = append(errs, fmt.Errorf("%s %s: failing case %s/%s has no entry in defects", r.Agent, r.Channel, c.Category, c.Case))
				continue
			}
			used[i] = true
			d := defects[i]
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s: %s |\n", r.Agent, r.Channel, cell(c.Category+": "+c.Case, 90),
				c.Level, cell(c.Source, 60), cell(c.Observed, 80), d.whose, cell(d.what, 200))
		}
	}
	for i, d := range defects {
		if !used[i] {
			errs = append(errs, fmt.Errorf("stale entry in defects: %s %q matches no failing case", d.agent, d.prefix))
		}
	}
	return b.String(), errors.Join(errs...)
}

func defectOf(agent string, c Case) int {
	best := -1
	for i, d := range defects {
		if d.agent == agent && strings.HasPrefix(c.Category+"/"+c.Case, d.prefix) && (best < 0 || len(d.prefix) > len(defects[best].prefix)) {
			best = i
		}
	}
	return best
}

func version(r Run) string {
	if r.Version == "" || r.Version == r.Requested {
		return r.Requested
	}
	return r.Version + " (" + r.Requested + " asked for: not available)"
}

func exitOf(r Run) string {
	if r.NotRun != "" {
		return "-"
	}
	return fmt.Sprint(r.Exit)
}

// verdictOf is the verdict with what decided it: the refusal that blocked
// cases, the reason a run did not happen.
func verdictOf(r Run) string {
	v := r.Verdict
	if r.NotRun != "" {
		return v + ": " + r.NotRun
	}
	if refusal, _, ok := strings.Cut(r.Hint, ": authenticate first"); ok {
		v += "; " + refusal
	} else if r.Hint != "" {
		v += "; " + r.Hint
	}
	return v
}

// cell makes s one table cell of at most max runes.
func cell(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max-1]) + "…"
	}
	return strings.ReplaceAll(s, "|", `\|`)
}
