package output

import (
	"fmt"
	"strings"
)

// context is how many unchanged lines surround a hunk.
const context = 3

// Unified renders a unified diff of one change. It trims the common head and
// tail and shows the rest as one hunk: exact, if not minimal, and linear in
// the file size, which matters for generated files of many thousand lines.
func Unified(c Change) string {
	a, b := lines(c.Old), lines(c.New)
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	start := max(pre-context, 0)
	endA := min(len(a)-suf+context, len(a))
	endB := min(len(b)-suf+context, len(b))
	var sb strings.Builder
	from, to := "a/"+c.Path, "b/"+c.Path
	if c.Kind == "missing" {
		from = "/dev/null"
	}
	if c.Kind == "extra" {
		to = "/dev/null"
	}
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", from, to)
	fmt.Fprintf(&sb, "@@ -%s +%s @@\n", span(start, endA), span(start, endB))
	for i := start; i < pre; i++ {
		sb.WriteString(" " + a[i] + "\n")
	}
	for i := pre; i < len(a)-suf; i++ {
		sb.WriteString("-" + a[i] + "\n")
	}
	for i := pre; i < len(b)-suf; i++ {
		sb.WriteString("+" + b[i] + "\n")
	}
	for i := len(a) - suf; i < endA; i++ {
		sb.WriteString(" " + a[i] + "\n")
	}
	return sb.String()
}

func span(start, end int) string {
	n := end - start
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

func lines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}
