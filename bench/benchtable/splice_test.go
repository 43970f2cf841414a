package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const doc = `# Benchmarks

Prose before.

| message | ns |
|---|---|
| a | 1 |
| b | 2 |

Between.

| measure | value |
|---|---|
| x | 9 |
`

// A fresh table replaces the doc's table with the same header; the prose
// and the other tables stay as they are.
func TestSpliceReplacesTablesByHeader(t *testing.T) {
	fresh := "Machine: test\n\nDecode:\n\n| message | ns |\n|---|---|\n| a | 3 |\n| b | 4 |\n| c | 5 |\n"
	got, err := splice([]byte(doc), []byte(fresh))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(doc, "| a | 1 |\n| b | 2 |\n", "| a | 3 |\n| b | 4 |\n| c | 5 |\n", 1)
	if string(got) != want {
		t.Errorf("spliced:\n%s\nwant:\n%s", got, want)
	}
}

// A fresh table whose header the doc lacks (a renamed column) is an error,
// and writeInto leaves the file as it was.
func TestSpliceRefusesUnknownTable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "b.md")
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	err := writeInto(file, []byte("| message | µs |\n|---|---|\n| a | 1 |\n"))
	if err == nil || !strings.Contains(err.Error(), `no table with the header "| message | µs |"`) {
		t.Errorf("err = %v", err)
	}
	if b, _ := os.ReadFile(file); string(b) != doc {
		t.Error("the file changed")
	}
	if err := writeInto(file, []byte("| measure | value |\n|---|---|\n| y | 1 |\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); !strings.HasSuffix(string(b), "| measure | value |\n|---|---|\n| y | 1 |\n") {
		t.Errorf("not written:\n%s", b)
	}
}
