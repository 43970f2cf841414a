package main

import (
	"slices"
	"strings"
	"testing"
)

// TestSweepSubset runs `acpgen schema sweep` on releases that each carry a
// shape only older schemas use: 0.4.5 (no JSON-RPC envelopes, routing
// unions of bare method defs, a variant of any value), 0.12.0 (two untitled
// array variants of one union), 0.22.0 (x-side "both"), 1.9.0 (the last
// single-file release, with the v2 draft's unstable file) and 2.4.0 (the
// pinned one: v1 and v2, stable and unstable). Every file must generate,
// build and vet.
func TestSweepSubset(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches five releases and builds nine generated packages")
	}
	needNpm(t)
	out, err := run(t, "schema", "sweep", "--version", "0.4.5", "--version", "0.12.0", "--version", "0.22.0",
		"--version", "1.9.0", "--version", "2.4.0", "--jobs", "2")
	if err != nil {
		t.Fatalf("sweep: %v\n%s", err, out)
	}
	var got []string
	for _, line := range strings.Split(out, "\n") {
		cells := strings.Split(line, " | ")
		if len(cells) != 6 || !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| version") {
			continue
		}
		if cells[3] == "" || cells[4] != "ok" {
			t.Errorf("row %s", line)
		}
		got = append(got, strings.TrimPrefix(cells[0], "| ")+" "+cells[1]+" "+cells[2])
	}
	want := []string{"0.4.5 v1 unstable", "0.12.0 v1 unstable", "0.22.0 v1 unstable", "1.9.0 v1 unstable", "1.9.0 v2 v2-unstable",
		"2.4.0 v1 stable", "2.4.0 v1 unstable", "2.4.0 v2 v2", "2.4.0 v2 v2-unstable"}
	if !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v\n%s", got, want, out)
	}
}

func TestSweepFlags(t *testing.T) {
	needNpm(t)
	if _, err := run(t, "schema", "sweep", "--version", "0.0.1"); err == nil || !strings.Contains(err.Error(), "0.0.1 is not a published version") {
		t.Errorf("unpublished version: %v", err)
	}
	if _, err := run(t, "schema", "sweep", "--version", "2.4.0", "--from", "2.0.0"); err == nil || !strings.Contains(err.Error(), "cannot be combined") {
		t.Errorf("--version with --from: %v", err)
	}
	if _, err := run(t, "schema", "sweep", "--from", "3.0.0", "--to", "2.0.0"); err == nil || !strings.Contains(err.Error(), "no published version between 3.0.0 and 2.0.0") {
		t.Errorf("empty range: %v", err)
	}
}
