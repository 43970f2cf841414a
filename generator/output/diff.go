package output

import (
	"fmt"
	"strings"
)

// contextLines is how many unchanged lines surround a hunk.
const contextLines = 3

// Unified renders a minimal unified diff of one change, with three lines of
// context and nearby hunks merged, as diff -u and git print it.
func Unified(c Change) string {
	a, b := lines(c.Old), lines(c.New)
	var sb strings.Builder
	from, to := "a/"+c.Path, "b/"+c.Path
	if c.Kind == "missing" {
		from = "/dev/null"
	}
	if c.Kind == "extra" {
		to = "/dev/null"
	}
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", from, to)
	ops := editScript(a, b)
	for _, h := range hunks(ops) {
		// Every op carries both positions, so a hunk's first op says where
		// it starts on each side, even when that side has no line in it.
		first := ops[h.start]
		na, nb := 0, 0
		for _, o := range ops[h.start:h.end] {
			if o.kind != '+' {
				na++
			}
			if o.kind != '-' {
				nb++
			}
		}
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", span(first.i, na), span(first.j, nb))
		for _, o := range ops[h.start:h.end] {
			switch o.kind {
			case '-':
				sb.WriteString("-" + a[o.i] + "\n")
			case '+':
				sb.WriteString("+" + b[o.j] + "\n")
			default:
				sb.WriteString(" " + a[o.i] + "\n")
			}
		}
	}
	return sb.String()
}

// span renders a hunk range: 1-based start and length, or, for an empty
// range, the number of the line it follows.
func span(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// noEOL marks a last line without a trailing newline. Carrying it inside the
// line makes "x" and "x\n" differ and prints diff's marker line after it.
const noEOL = "\n\\ No newline at end of file"

func lines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	s := string(b)
	eol := strings.HasSuffix(s, "\n")
	out := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if !eol {
		out[len(out)-1] += noEOL
	}
	return out
}

// op is one line of the edit script: kept (' '), deleted ('-') or inserted
// ('+'); i and j are the line's (or, for the other side, the next line's)
// 0-based positions in a and b.
type op struct {
	kind byte
	i, j int
}

func editScript(a, b []string) []op {
	delA, insB := make([]bool, len(a)), make([]bool, len(b))
	// A line that does not occur on the other side can never be kept.
	// Setting such lines aside before the search leaves the result minimal
	// and makes a rewrite with little in common linear instead of quadratic.
	inA, inB := map[string]bool{}, map[string]bool{}
	for _, s := range a {
		inA[s] = true
	}
	for _, s := range b {
		inB[s] = true
	}
	var ia, ib []int
	var ra, rb []string
	for i, s := range a {
		if inB[s] {
			ia, ra = append(ia, i), append(ra, s)
		} else {
			delA[i] = true
		}
	}
	for j, s := range b {
		if inA[s] {
			ib, rb = append(ib, j), append(rb, s)
		} else {
			insB[j] = true
		}
	}
	d := &differ{a: ra, b: rb, delA: make([]bool, len(ra)), insB: make([]bool, len(rb))}
	d.compare(0, len(ra), 0, len(rb))
	for k, del := range d.delA {
		delA[ia[k]] = del
	}
	for k, ins := range d.insB {
		insB[ib[k]] = ins
	}
	var ops []op
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && delA[i]:
			ops = append(ops, op{'-', i, j})
			i++
		case j < len(b) && insB[j]:
			ops = append(ops, op{'+', i, j})
			j++
		default:
			ops = append(ops, op{' ', i, j})
			i++
			j++
		}
	}
	return ops
}

type hunk struct{ start, end int } // a range of ops

// hunks groups changed ops with their context, merging hunks whose context
// would touch or overlap.
func hunks(ops []op) []hunk {
	var out []hunk
	for k := 0; k < len(ops); k++ {
		if ops[k].kind == ' ' {
			continue
		}
		start := max(k-contextLines, 0)
		end := min(k+1+contextLines, len(ops))
		if n := len(out); n > 0 && start <= out[n-1].end {
			out[n-1].end = end
		} else {
			out = append(out, hunk{start, end})
		}
	}
	return out
}

// differ computes a shortest edit script with Myers' linear-space
// divide-and-conquer algorithm: O((N+M)·D) time and O(N+M) memory, so even a
// rewritten file of many thousand lines diffs quickly.
type differ struct {
	a, b   []string
	delA   []bool // a[i] is deleted
	insB   []bool // b[j] is inserted
	vf, vb []int
}

func (d *differ) compare(alo, ahi, blo, bhi int) {
	for alo < ahi && blo < bhi && d.a[alo] == d.b[blo] {
		alo, blo = alo+1, blo+1
	}
	for alo < ahi && blo < bhi && d.a[ahi-1] == d.b[bhi-1] {
		ahi, bhi = ahi-1, bhi-1
	}
	if alo == ahi || blo == bhi {
		for i := alo; i < ahi; i++ {
			d.delA[i] = true
		}
		for j := blo; j < bhi; j++ {
			d.insB[j] = true
		}
		return
	}
	xs, ys, xe, ye := d.middleSnake(alo, ahi, blo, bhi)
	if (xs == alo && ys == blo && xe == alo && ye == blo) || (xs == ahi && ys == bhi) {
		// Cannot happen after trimming (D >= 2 here); guards termination.
		for i := alo; i < ahi; i++ {
			d.delA[i] = true
		}
		for j := blo; j < bhi; j++ {
			d.insB[j] = true
		}
		return
	}
	d.compare(alo, xs, blo, ys)
	d.compare(xe, ahi, ye, bhi)
}

// middleSnake runs the forward and backward searches until they meet and
// returns the snake (a run of equal lines) on an optimal path where they do,
// as absolute start and end points.
func (d *differ) middleSnake(alo, ahi, blo, bhi int) (xs, ys, xe, ye int) {
	n, m := ahi-alo, bhi-blo
	delta := n - m
	odd := delta%2 != 0
	maxD := (n + m + 1) / 2
	// Diagonal k = x - y lies in [-m, n]; backward diagonals are centred on
	// delta. off shifts them into slice indices.
	off := maxD + 1 + abs(delta)
	size := 2*off + 1
	if cap(d.vf) < size {
		d.vf, d.vb = make([]int, size), make([]int, size)
	}
	vf, vb := d.vf[:size], d.vb[:size]
	vf[off+1] = 0           // the d = 0 forward step starts at (0, 0)
	vb[off+delta+1] = n + 1 // the d = 0 backward step starts at (n, m)
	for dd := 0; dd <= maxD; dd++ {
		for k := -dd; k <= dd; k += 2 {
			var x int
			if k == -dd || (k != dd && vf[off+k-1] < vf[off+k+1]) {
				x = vf[off+k+1] // down: insert b[y]
			} else {
				x = vf[off+k-1] + 1 // right: delete a[x]
			}
			y := x - k
			x0, y0 := x, y
			for x < n && y < m && d.a[alo+x] == d.b[blo+y] {
				x, y = x+1, y+1
			}
			vf[off+k] = x
			if odd && k >= delta-(dd-1) && k <= delta+(dd-1) && x >= vb[off+k] {
				return alo + x0, blo + y0, alo + x, blo + y
			}
		}
		for k := delta - dd; k <= delta+dd; k += 2 {
			var x int
			if k == delta-dd || (k != delta+dd && vb[off+k+1]-1 < vb[off+k-1]) {
				x = vb[off+k+1] - 1 // left: delete a[x-1]
			} else {
				x = vb[off+k-1] // up: insert b[y-1]
			}
			y := x - k
			x0, y0 := x, y
			for x > 0 && y > 0 && d.a[alo+x-1] == d.b[blo+y-1] {
				x, y = x-1, y-1
			}
			vb[off+k] = x
			if !odd && k >= -dd && k <= dd && x <= vf[off+k] {
				return alo + x, blo + y, alo + x0, blo + y0
			}
		}
	}
	// Unreachable: the searches meet by maxD.
	return alo, blo, alo, blo
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
