package output

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const hdr = Header + " from the ACP JSON Schema. DO NOT EDIT.\n\npackage p\n"

// tree writes files (slash paths) under a new root.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, s := range files {
		path := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// snapshot reads every file under root, hidden ones included.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func same(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

var before = map[string]string{
	"gen/a.go":    hdr + "// old a\n",
	"gen/b.go":    hdr + "// old b\n",
	"gen/gone.go": hdr + "// no longer generated\n",
	"gen/mine.go": "package p\n// hand-written\n",
}

var next = map[string][]byte{
	"gen/a.go":     []byte(hdr + "// new a\n"),
	"gen/b.go":     []byte(hdr + "// new b\n"),
	"gen/c.go":     []byte(hdr + "// new c\n"),
	"gen/sub/d.go": []byte(hdr + "// new d\n"),
}

// TestWriteFailureLeavesOutputUntouched injects failures at every stage
// before the renames: the tree must be byte-identical afterwards, without
// temporary files.
func TestWriteFailureLeavesOutputUntouched(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, root string) (files map[string][]byte, ctx context.Context)
	}{
		{"failure injected just before the rename phase", func(t *testing.T, root string) (map[string][]byte, context.Context) {
			beforeRename = func() error { return errors.New("injected") }
			t.Cleanup(func() { beforeRename = func() error { return nil } })
			return next, context.Background()
		}},
		{"a target whose folder is a file", func(t *testing.T, root string) (map[string][]byte, context.Context) {
			if err := os.WriteFile(filepath.Join(root, "zz"), []byte("a file, not a folder\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			files := map[string][]byte{"zz/e.go": []byte(hdr)}
			for k, v := range next {
				files[k] = v
			}
			return files, context.Background()
		}},
		{"interrupted (context cancelled) before the rename phase", func(t *testing.T, root string) (map[string][]byte, context.Context) {
			ctx, cancel := context.WithCancel(context.Background())
			beforeRename = func() error { cancel(); return nil }
			t.Cleanup(func() { beforeRename = func() error { return nil } })
			return next, ctx
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := tree(t, before)
			files, ctx := c.setup(t, root)
			was := snapshot(t, root)
			_, err := WriteContext(ctx, root, files, []string{"gen", "gen/sub"})
			if err == nil || !strings.Contains(err.Error(), "nothing written") {
				t.Fatalf("want a \"nothing written\" error, got %v", err)
			}
			if now := snapshot(t, root); !same(was, now) {
				t.Fatalf("output changed:\nbefore %v\nafter  %v", was, now)
			}
		})
	}
}

func TestWriteReplacesRemovesAndKeeps(t *testing.T) {
	root := tree(t, before)
	// A temporary file of a run killed before its renames.
	leftover := "gen/.a.go" + tempMarker + "123"
	os.WriteFile(filepath.Join(root, filepath.FromSlash(leftover)), []byte(hdr), 0o644)
	sum, err := WriteContext(context.Background(), root, next, []string{"gen", "gen/sub"})
	if err != nil {
		t.Fatal(err)
	}
	// a and b replaced, c and d new; gone.go removed.
	if sum != (Summary{Written: 4, Unchanged: 0, Removed: 1}) {
		t.Errorf("summary %+v", sum)
	}
	if sum, err := WriteContext(context.Background(), root, next, []string{"gen", "gen/sub"}); err != nil || sum != (Summary{Unchanged: 4}) {
		t.Errorf("second write: %+v, %v; want everything unchanged", sum, err)
	}
	want := map[string]string{"gen/mine.go": before["gen/mine.go"]}
	for k, v := range next {
		want[k] = string(v)
	}
	if got := snapshot(t, root); !same(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	if changes, err := Compare(root, next, []string{"gen"}); err != nil || len(changes) != 0 {
		t.Fatalf("after Write, Compare reports %v, %v", changes, err)
	}
}

func TestUnifiedExact(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\n"
	new := "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\nadded\n"
	got := Unified(Change{Path: "x.go", Kind: "stale", Old: []byte(old), New: []byte(new)})
	want := `--- a/x.go
+++ b/x.go
@@ -1,5 +1,5 @@
 a
-b
+B
 c
 d
 e
@@ -12,3 +12,4 @@
 l
 m
 n
+added
`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	got = Unified(Change{Path: "y.go", Kind: "missing", New: []byte("p\nq\n")})
	if want := "--- /dev/null\n+++ b/y.go\n@@ -0,0 +1,2 @@\n+p\n+q\n"; got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	got = Unified(Change{Path: "z.go", Kind: "stale", Old: []byte("p\nq"), New: []byte("p\nq\n")})
	if want := "--- a/z.go\n+++ b/z.go\n@@ -1,2 +1,2 @@\n p\n-q\n\\ No newline at end of file\n+q\n"; got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// TestUnifiedMinimalAndApplies checks, on many pseudo-random pairs from a
// fixed seed, that the diff applies back to the new text and changes exactly
// as many lines as a longest-common-subsequence computation says is minimal.
func TestUnifiedMinimalAndApplies(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	gen := func() []string {
		n := r.IntN(40)
		out := make([]string, n)
		for i := range out {
			out[i] = string(rune('a' + r.IntN(4)))
		}
		return out
	}
	for n := 0; n < 2000; n++ {
		a, b := gen(), gen()
		ops := editScript(a, b)
		var gotA, gotB []string
		changed := 0
		for _, o := range ops {
			switch o.kind {
			case '-':
				gotA = append(gotA, a[o.i])
				changed++
			case '+':
				gotB = append(gotB, b[o.j])
				changed++
			default:
				if a[o.i] != b[o.j] {
					t.Fatalf("%v -> %v: kept lines differ", a, b)
				}
				gotA, gotB = append(gotA, a[o.i]), append(gotB, b[o.j])
			}
		}
		if strings.Join(gotA, "") != strings.Join(a, "") || strings.Join(gotB, "") != strings.Join(b, "") {
			t.Fatalf("%v -> %v: script does not rebuild both sides", a, b)
		}
		if want := len(a) + len(b) - 2*lcs(a, b); changed != want {
			t.Fatalf("%v -> %v: %d changed lines, minimum is %d", a, b, changed, want)
		}
		if err := applies(Unified(Change{Path: "f", Kind: "stale", Old: text(a), New: text(b)}), a, b); err != nil {
			t.Fatalf("%v -> %v: %v", a, b, err)
		}
	}
}

func text(l []string) []byte {
	var b bytes.Buffer
	for _, s := range l {
		b.WriteString(s + "\n")
	}
	return b.Bytes()
}

func lcs(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

// applies is a small patch(1): it applies the hunks of diff to a and checks
// the result is b, which also validates the hunk headers.
func applies(diff string, a, b []string) error {
	ls := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")[2:]
	var out []string
	pos := 0 // next unconsumed line of a
	for k := 0; k < len(ls); {
		var as, al, bs, bl int
		if _, err := fmt.Sscanf(ls[k], "@@ -%d,%d +%d,%d @@", &as, &al, &bs, &bl); err != nil {
			return fmt.Errorf("bad header %q", ls[k])
		}
		k++
		start := as - 1
		if al == 0 {
			start = as
		}
		if start < pos {
			return fmt.Errorf("hunks overlap at %q", ls[k-1])
		}
		out = append(out, a[pos:start]...)
		pos = start
		na, nb := 0, 0
		for ; k < len(ls) && !strings.HasPrefix(ls[k], "@@"); k++ {
			l := ls[k]
			switch l[0] {
			case ' ', '-':
				if a[pos] != l[1:] {
					return fmt.Errorf("context %q does not match a[%d]=%q", l, pos, a[pos])
				}
				pos++
				na++
				if l[0] == ' ' {
					out = append(out, l[1:])
					nb++
				}
			case '+':
				out = append(out, l[1:])
				nb++
			}
		}
		if na != al || nb != bl {
			return fmt.Errorf("header says -%d +%d, body has -%d +%d", al, bl, na, nb)
		}
	}
	out = append(out, a[pos:]...)
	if strings.Join(out, "\n") != strings.Join(b, "\n") {
		return fmt.Errorf("patched text differs: %v", out)
	}
	return nil
}

// TestUnifiedLargeRewrite diffs two unrelated files of 20000 lines: the
// linear-space algorithm must cope without quadratic memory.
func TestUnifiedLargeRewrite(t *testing.T) {
	var a, b bytes.Buffer
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&a, "old line %d\n", i)
		fmt.Fprintf(&b, "new line %d\n", i)
	}
	d := Unified(Change{Path: "big.go", Kind: "stale", Old: a.Bytes(), New: b.Bytes()})
	if !strings.HasPrefix(d, "--- a/big.go\n+++ b/big.go\n@@ -1,20000 +1,20000 @@\n") {
		t.Fatalf("unexpected header: %.100q", d)
	}
}
