package sweep

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestSelect(t *testing.T) {
	all := []string{"0.4.5", "0.10.0", "1.0.0-beta.1", "1.0.0", "2.4.0"}
	for _, c := range []struct {
		from, to string
		want     []string
	}{
		{"", "", []string{"0.4.5", "0.10.0", "1.0.0", "2.4.0"}},
		{"0.10.0", "", []string{"0.10.0", "1.0.0", "2.4.0"}},
		{"", "0.10.0", []string{"0.4.5", "0.10.0"}},
		{"0.5.0", "1.0.0", []string{"0.10.0", "1.0.0"}},
	} {
		got, err := Select(all, c.from, c.to)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("Select(%q, %q) = %v, %v; want %v", c.from, c.to, got, err, c.want)
		}
	}
	if _, err := Select(all, "x", ""); err == nil {
		t.Error("a bound that is no version is accepted")
	}
	if _, err := Select(all, "3.0.0", ""); err == nil {
		t.Error("an empty selection is accepted")
	}
}

// npm lists versions in publication order; the sweep goes by version.
func TestSortsBySemver(t *testing.T) {
	v := []string{"0.10.0", "0.4.9", "2.0.0", "0.4.10"}
	slicesSort(v)
	if !slices.Equal(v, []string{"0.4.9", "0.4.10", "0.10.0", "2.0.0"}) {
		t.Errorf("sorted %v", v)
	}
}

func TestTable(t *testing.T) {
	var b bytes.Buffer
	rows := []Row{
		{Version: "0.4.5", Protocol: "v1", Channel: "unstable", Defs: 87, Result: OK},
		{Version: "0.5.1", Protocol: "v1", Result: Fetch, Err: "npm: E404 | not found"},
	}
	Table(&b, rows)
	want := "| version | protocol | channel | defs | result | first error |\n|---|---|---|---|---|---|\n" +
		"| 0.4.5 | v1 | unstable | 87 | ok |  |\n| 0.5.1 | v1 |  |  | fetch failed | npm: E404 \\| not found |\n"
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
	if Failed(rows) != 1 {
		t.Errorf("Failed = %d", Failed(rows))
	}
}

func TestFirstError(t *testing.T) {
	out := "# acpgen.sweep/v0_4_5/unstable\nv0_4_5/unstable/types.go:3:2: undefined: x\nmore\n"
	if got := firstError(out, errors.New("exit status 1")); got != "v0_4_5/unstable/types.go:3:2: undefined: x" {
		t.Errorf("firstError = %q", got)
	}
	if got := firstError("", errors.New("exit status 2")); got != "exit status 2" {
		t.Errorf("firstError = %q", got)
	}
	if got := firstLine("a\nb"); !strings.HasPrefix(got, "a") || strings.Contains(got, "b") {
		t.Errorf("firstLine = %q", got)
	}
}
