package buildcost

import (
	"os"
	"path/filepath"
	"testing"
)

// summary reads the total from the summary line of a cachegrind output file
// and refuses a file without one.
func TestSummary(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.out")
	if err := os.WriteFile(good, []byte("desc: I1 cache: none\ncmd: compile\nevents: Ir\nfl=x.go\n1 5\nsummary: 3934041516\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n, err := summary(good); err != nil || n != 3934041516 {
		t.Errorf("summary = %d, %v; want 3934041516", n, err)
	}
	bad := filepath.Join(dir, "bad.out")
	if err := os.WriteFile(bad, []byte("events: Ir\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := summary(bad); err == nil {
		t.Error("no summary line: no error")
	}
}
