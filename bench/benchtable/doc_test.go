package main

import (
	"os"
	"path/filepath"
	"testing"
)

// The repository root, from this package's folder.
var root = filepath.Join("..", "..")

// The tables of docs/benchmarks.md are the ones the committed results in
// bench/results render, so the doc's figures are reproducible from committed
// data (go run ./bench/benchtable -w docs/benchmarks.md rewrites them).
func TestDocTable(t *testing.T) {
	fresh, err := render(filepath.Join(root, "bench", "results"))
	if err != nil {
		t.Fatal(err)
	}
	docFile := filepath.Join(root, "docs", "benchmarks.md")
	doc, err := os.ReadFile(docFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := splice(doc, fresh); err != nil {
		t.Fatalf("%s: %v", docFile, err)
	}
	_, want := tables(fresh)
	_, got := tables(doc)
	for h, w := range want {
		if string(got[h]) != string(w) {
			t.Errorf("docs/benchmarks.md: the table differs from the one bench/results renders (go run ./bench/benchtable -w docs/benchmarks.md):\n--- doc\n%s--- rendered\n%s", got[h], w)
		}
	}
}

// Every table the results render has a header of its own: the doc's
// tables are found by header, so two alike would be spliced into one.
func TestRenderedHeadersAreDistinct(t *testing.T) {
	fresh, err := render(filepath.Join(root, "bench", "results"))
	if err != nil {
		t.Fatal(err)
	}
	order, byHeader := tables(fresh)
	if len(order) != len(byHeader) {
		t.Errorf("%d tables, %d distinct headers: %q", len(order), len(byHeader), order)
	}
}
