package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strings"

	"github.com/acpgen/acpgen/generator/source"
	"golang.org/x/mod/semver"
)

// Published lists the released versions of the schema package, oldest
// first, as npm reports them.
func Published(ctx context.Context, npm string) ([]string, error) {
	if npm == "" {
		npm = "npm"
	}
	cmd := exec.CommandContext(ctx, npm, "view", source.Package, "versions", "--json")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("npm view %s versions: %v: %s", source.Package, err, firstLine(stderr.String()))
	}
	var versions []string
	if err := json.Unmarshal(out, &versions); err != nil {
		// A package with one version is printed as a string.
		var one string
		if json.Unmarshal(out, &one) != nil {
			return nil, fmt.Errorf("npm view %s versions: unexpected output %.200q", source.Package, out)
		}
		versions = []string{one}
	}
	slicesSort(versions)
	return versions, nil
}

func slicesSort(versions []string) { sort.Sort(vs(versions)) }

// vs sorts versions as semver does, with npm's unprefixed spelling.
type vs []string

func (x vs) Len() int           { return len(x) }
func (x vs) Less(i, j int) bool { return semver.Compare("v"+x[i], "v"+x[j]) < 0 }
func (x vs) Swap(i, j int)      { x[i], x[j] = x[j], x[i] }

// Select keeps the versions from from to to, both included; "" leaves a
// side open. Pre-releases are skipped: they are not releases to support.
func Select(versions []string, from, to string) ([]string, error) {
	for _, b := range []string{from, to} {
		if b != "" && !semver.IsValid("v"+b) {
			return nil, fmt.Errorf("%q is not a version (such as 0.4.5)", b)
		}
	}
	var out []string
	for _, v := range versions {
		switch {
		case semver.Prerelease("v"+v) != "":
		case from != "" && semver.Compare("v"+v, "v"+from) < 0:
		case to != "" && semver.Compare("v"+v, "v"+to) > 0:
		default:
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no published version between %s and %s", orOpen(from), orOpen(to))
	}
	return out, nil
}

func orOpen(v string) string {
	if v == "" {
		return "(open)"
	}
	return v
}

// Table writes the rows as a Markdown table, which reads as text too.
func Table(w io.Writer, rows []Row) {
	fmt.Fprintln(w, "| version | protocol | channel | defs | result | first error |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, r := range rows {
		defs := ""
		if r.Defs > 0 {
			defs = fmt.Sprint(r.Defs)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", r.Version, r.Protocol, r.Channel, defs, r.Result, cell(r.Err))
	}
}

// cell keeps a message inside its table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// Failed counts the rows that did not pass.
func Failed(rows []Row) int {
	n := 0
	for _, r := range rows {
		if r.Result != OK {
			n++
		}
	}
	return n
}
