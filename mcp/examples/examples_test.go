// Package examples_test runs the example pair as docs/mcp.md shows it.
package examples_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// block returns the fenced block after the marker comment in doc.
func block(t *testing.T, doc, marker string) string {
	t.Helper()
	re := regexp.MustCompile("(?s)<!-- mcp-example: " + marker + " -->\n```[a-z]*\n(.*?)```")
	m := re.FindStringSubmatch(doc)
	if m == nil {
		t.Fatalf("docs/mcp.md has no %q block", marker)
	}
	return m[1]
}

// TestExamplePairAsDocumented runs the commands of docs/mcp.md's example
// block from the repository root, with bin/ replaced by a temporary
// directory, and compares what they print with the documented output.
func TestExamplePairAsDocumented(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "mcp.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	script := strings.ReplaceAll(block(t, doc, "run"), "bin/", t.TempDir()+"/")
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = filepath.Join("..", "..")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, script)
	}
	if want := block(t, doc, "output"); string(out) != want {
		t.Errorf("the example printed\n%s\nwant\n%s", out, want)
	}
}
