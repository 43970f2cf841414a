package golden_test

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"strings"
	"testing"
)

// This file computes a golden: what one overlay changes in the generated Go.
//
// Both generations, without and with the overlay, are parsed, and the
// top-level declarations of each generated file are matched by name: a
// function or method, a type, or a const or var (each spec of a
// parenthesised group on its own, so that one added constant does not
// bring its group along). Imports are left out.
//
//   - A declaration the overlay adds is shown whole, unless it is the same
//     as another type's declaration with that type's name replaced (the
//     decoders and encoders of a new type, a helper repeated on each type
//     that gets a member): then the summary names it and the one it repeats.
//   - A declaration it changes is shown shortened. Inside function bodies
//     and composite literals, the elements of each list (statements, switch
//     cases, literal elements) are matched with the same list without the
//     overlay by a longest common subsequence of their text; a run of
//     matched elements spanning three lines or more becomes a comment
//     counting them, an unmatched element with a counterpart (a case with
//     the same expressions, a literal element with the same key, a
//     statement with the same header) is compared in turn, and the old
//     elements without a new one are shown as comments where they were.
//     So the gate table of a capability the overlay adds shows that
//     capability's case, and a member the overlay makes strict shows the
//     lenient branch it removes. Type declarations are never shortened.
//   - A declaration it removes is named in the summary.

// parsed is one parsed generated file.
type parsed struct {
	fset *token.FileSet
	src  []byte
}

func (s *parsed) off(p token.Pos) int { return s.fset.Position(p).Offset }

func (s *parsed) text(n ast.Node) string { return string(s.src[s.off(n.Pos()):s.off(n.End())]) }

// A declaration is one top-level declaration, or one spec of a group.
type declaration struct {
	key  string // "func X", "method T.M", "type T", "const A, B", "var V", "var _ 2"
	name string // as listed in a golden's summary
	// The declaration's text is head followed by src[from:to]: a
	// declaration as written has its doc comment in that range; a spec of a
	// group has its doc comment and keyword in head.
	head     string
	from, to int
	node     ast.Node // the FuncDecl, or the (only) spec
	src      *parsed
}

func (d declaration) text() string { return d.head + string(d.src.src[d.from:d.to]) }

// declarations returns the declarations of a generated file in source
// order; imports are left out.
func declarations(name string, b []byte) ([]declaration, error) {
	s := &parsed{token.NewFileSet(), b}
	f, err := parser.ParseFile(s.fset, name, b, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []declaration
	blank := 0
	add := func(kind, name, head string, from, to token.Pos, n ast.Node) {
		key := kind + " " + name
		if name == "_" { // many: told apart by their order
			blank++
			key = fmt.Sprintf("%s %d", key, blank)
		}
		out = append(out, declaration{key: key, name: name, head: head, from: s.off(from), to: s.off(to), node: n, src: s})
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			from := d.Pos()
			if d.Doc != nil {
				from = d.Doc.Pos()
			}
			if d.Recv == nil {
				add("func", d.Name.Name, "", from, d.End(), d)
			} else {
				add("method", receiver(d.Recv.List[0].Type)+"."+d.Name.Name, "", from, d.End(), d)
			}
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				continue
			}
			if !d.Lparen.IsValid() {
				from := d.Pos()
				if d.Doc != nil {
					from = d.Doc.Pos()
				}
				add(d.Tok.String(), specName(d.Specs[0]), "", from, d.End(), d.Specs[0])
				continue
			}
			for _, sp := range d.Specs {
				doc, end := specComments(sp)
				head := d.Tok.String() + " "
				if doc != nil {
					head = s.text(doc) + "\n" + head
				}
				add(d.Tok.String(), specName(sp), head, sp.Pos(), end, sp)
			}
		}
	}
	return out, nil
}

func receiver(x ast.Expr) string {
	for {
		switch e := x.(type) {
		case *ast.StarExpr:
			x = e.X
		case *ast.IndexExpr: // generic receiver T[P]
			x = e.X
		case *ast.IndexListExpr:
			x = e.X
		case *ast.Ident:
			return e.Name
		default:
			return fmt.Sprintf("%T", x)
		}
	}
}

func specName(s ast.Spec) string {
	switch s := s.(type) {
	case *ast.TypeSpec:
		return s.Name.Name
	case *ast.ValueSpec:
		var names []string
		for _, n := range s.Names {
			names = append(names, n.Name)
		}
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%T", s)
}

// specComments returns a spec's doc comment and where the spec ends,
// including its line comment.
func specComments(s ast.Spec) (*ast.CommentGroup, token.Pos) {
	var doc, line *ast.CommentGroup
	switch s := s.(type) {
	case *ast.TypeSpec:
		doc, line = s.Doc, s.Comment
	case *ast.ValueSpec:
		doc, line = s.Doc, s.Comment
	}
	if line != nil {
		return doc, line.End()
	}
	return doc, s.End()
}

// An elementList is a list of elements directly under a node: statements
// of a block or case, the cases of a switch, the elements of a composite
// literal.
type elementList struct {
	elems []ast.Node
	open  token.Pos // where the list starts: after its brace or colon
	comma bool      // elements are comma-separated
}

// lists returns the element lists under n, not those inside their elements.
func lists(n ast.Node) []elementList {
	var out []elementList
	ast.Inspect(n, func(m ast.Node) bool {
		switch m := m.(type) {
		case *ast.BlockStmt:
			out = append(out, elementList{elems: nodes(m.List), open: m.Lbrace + 1})
		case *ast.CaseClause:
			out = append(out, elementList{elems: nodes(m.Body), open: m.Colon + 1})
		case *ast.CommClause:
			out = append(out, elementList{elems: nodes(m.Body), open: m.Colon + 1})
		case *ast.CompositeLit:
			out = append(out, elementList{elems: nodes(m.Elts), open: m.Lbrace + 1, comma: true})
		default:
			return true
		}
		return false
	})
	return out
}

func nodes[T ast.Node](l []T) []ast.Node {
	out := make([]ast.Node, len(l))
	for i, n := range l {
		out[i] = n
	}
	return out
}

// elementKey names an element by its head (a case's expressions, a
// literal element's key, a compound statement's header), so that a changed
// element is compared with its counterpart; "" when it has none.
func elementKey(s *parsed, n ast.Node) string {
	head := func(body *ast.BlockStmt) string {
		return fmt.Sprintf("%T ", n) + string(s.src[s.off(n.Pos()):s.off(body.Lbrace)])
	}
	switch n := n.(type) {
	case *ast.CaseClause:
		if n.List == nil {
			return "default"
		}
		var l []string
		for _, e := range n.List {
			l = append(l, s.text(e))
		}
		return "case " + strings.Join(l, ", ")
	case *ast.CommClause:
		if n.Comm == nil {
			return "default"
		}
		return "case " + s.text(n.Comm)
	case *ast.KeyValueExpr:
		return "key " + s.text(n.Key)
	case *ast.IfStmt:
		return head(n.Body)
	case *ast.ForStmt:
		return head(n.Body)
	case *ast.RangeStmt:
		return head(n.Body)
	case *ast.SwitchStmt:
		return head(n.Body)
	case *ast.TypeSwitchStmt:
		return head(n.Body)
	case *ast.SelectStmt:
		return head(n.Body)
	case *ast.ReturnStmt:
		return "return"
	case *ast.ExprStmt:
		if c, ok := n.X.(*ast.CallExpr); ok {
			return "call " + s.text(c.Fun)
		}
	}
	return ""
}

// An edit replaces src[from:to] (an insertion when they are equal).
type edit struct {
	from, to int
	text     string
}

// elide returns the text of d, a changed declaration, shortened: the runs
// of elements that old has unchanged are replaced by a comment counting
// them, and the elements old has that d lacks are shown as comments.
func elide(d, old declaration) string {
	var edits []edit
	compareElements(d.src, d.node, old.src, old.node, &edits)
	slices.SortStableFunc(edits, func(a, b edit) int {
		if a.from != b.from {
			return a.from - b.from
		}
		return (a.to - a.from) - (b.to - b.from) // an insertion first
	})
	var b strings.Builder
	b.WriteString(d.head)
	at := d.from
	for _, e := range edits {
		b.Write(d.src.src[at:e.from])
		b.WriteString(e.text)
		at = e.to
	}
	b.Write(d.src.src[at:d.to])
	return b.String()
}

// compareElements compares the element lists under n with those under o,
// its counterpart in the old generation, the i-th with the i-th: elements
// are matched by text (a longest common subsequence); between matches, a
// new element and a removed one with the same key are compared in turn, a
// new element without one is shown whole, and removed elements are shown
// as comments where they were.
func compareElements(s *parsed, n ast.Node, osrc *parsed, o ast.Node, edits *[]edit) {
	ol := lists(o)
	for i, l := range lists(n) {
		if i >= len(ol) {
			return
		}
		oe := ol[i].elems
		nt, ot := texts(s, l.elems), texts(osrc, oe)
		same := commonSubsequence(nt, ot)
		// Elements that are the same in both, after the last changed one,
		// when they are cases: a comment after the last case would read
		// as part of its body, so they stay, their bodies shortened.
		tail := len(l.elems)
		if tail > 0 {
			if _, ok := l.elems[tail-1].(*ast.CaseClause); ok {
				for tail > 0 && same[tail-1] >= 0 {
					tail--
				}
			}
		}
		var run []ast.Node
		flush := func() {
			if len(run) > 0 {
				elideRun(s, run, l.comma, edits)
			}
			run = nil
		}
		// Hunks: the new elements j..k-1 and the old ones next..upto-1,
		// unmatched, before the match of new element k.
		for j, next := 0, 0; ; {
			k := j
			for k < len(l.elems) && same[k] < 0 {
				k++
			}
			upto := len(oe)
			if k < len(l.elems) {
				upto = same[k]
			}
			if k > j || upto > next {
				flush()
				if removed := pairChanged(s, l.elems[j:k], osrc, oe[next:upto], edits); len(removed) > 0 {
					at, pre := insertionPoint(s, l, j)
					*edits = append(*edits, edit{at, at, pre + commented(osrc, removed)})
				}
			}
			if k == len(l.elems) {
				break
			}
			if k < tail {
				run = append(run, l.elems[k])
			} else {
				flush()
				compareElements(s, l.elems[k], osrc, oe[same[k]], edits)
			}
			j, next = k+1, same[k]+1
		}
		flush()
	}
}

// pairChanged compares each new element with the old one of the same key
// and returns the old elements that have no new counterpart.
func pairChanged(s *parsed, news []ast.Node, osrc *parsed, olds []ast.Node, edits *[]edit) []ast.Node {
	paired := make([]bool, len(olds))
	for _, e := range news {
		k := elementKey(s, e)
		if k == "" {
			continue
		}
		for i, o := range olds {
			if !paired[i] && elementKey(osrc, o) == k {
				paired[i] = true
				compareElements(s, e, osrc, o, edits)
				break
			}
		}
	}
	var out []ast.Node
	for i, o := range olds {
		if !paired[i] {
			out = append(out, o)
		}
	}
	return out
}

// insertionPoint returns where comments go in front of l's j-th element
// (after the last when j is past the end), and the text that must precede
// them there.
func insertionPoint(s *parsed, l elementList, j int) (int, string) {
	if j < len(l.elems) {
		return s.off(l.elems[j].Pos()), ""
	}
	if j == 0 {
		return s.off(l.open), "\n"
	}
	at := s.off(l.elems[j-1].End())
	if l.comma {
		if rest := bytes.TrimLeft(s.src[at:], " \t"); len(rest) > 0 && rest[0] == ',' {
			at = len(s.src) - len(rest) + 1
		}
	}
	return at, "\n"
}

// commented returns removed elements as comment lines, each line of the
// elements' text after a tab.
func commented(s *parsed, removed []ast.Node) string {
	var b strings.Builder
	b.WriteString("// removed:\n")
	for _, n := range removed {
		indent := s.fset.Position(n.Pos()).Column - 1 // tabs before the first line
		for _, line := range strings.Split(s.text(n), "\n") {
			for i := 0; i < indent && strings.HasPrefix(line, "\t"); i++ {
				line = line[1:]
			}
			b.WriteString("//\t" + line + "\n")
		}
	}
	return b.String()
}

func texts(s *parsed, l []ast.Node) []string {
	out := make([]string, len(l))
	for i, n := range l {
		out[i] = s.text(n)
	}
	return out
}

// commonSubsequence matches a with b by a longest common subsequence: for
// each element of a, the index of its match in b, or -1.
func commonSubsequence(a, b []string) []int {
	// n[i][j]: the length of the longest common subsequence of a[i:], b[j:].
	n := make([][]int, len(a)+1)
	for i := range n {
		n[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				n[i][j] = n[i+1][j+1] + 1
			} else {
				n[i][j] = max(n[i+1][j], n[i][j+1])
			}
		}
	}
	out := make([]int, len(a))
	for i, j := 0, 0; i < len(a); {
		switch {
		case j < len(b) && a[i] == b[j]:
			out[i] = j
			i, j = i+1, j+1
		case j < len(b) && n[i][j+1] >= n[i+1][j]:
			j++
		default:
			out[i] = -1
			i++
		}
	}
	return out
}

// elideRun replaces a run of unchanged elements by a comment counting them,
// when it spans three lines or more.
func elideRun(s *parsed, run []ast.Node, comma bool, edits *[]edit) {
	first, last := run[0], run[len(run)-1]
	if s.fset.Position(last.End()).Line-s.fset.Position(first.Pos()).Line < 2 {
		return
	}
	from, to := s.off(first.Pos()), s.off(last.End())
	if comma {
		rest := bytes.TrimLeft(s.src[to:], " \t")
		if len(rest) > 0 && rest[0] == ',' {
			to = len(s.src) - len(rest) + 1
		}
	}
	what := "statement"
	switch {
	case comma:
		what = "element"
	default:
		if _, ok := first.(*ast.CaseClause); ok {
			what = "case"
		}
	}
	if len(run) > 1 {
		what += "s"
	}
	// The comment takes lines of its own.
	text := fmt.Sprintf("// ... %d unchanged %s", len(run), what)
	if line := s.src[bytes.LastIndexByte(s.src[:from], '\n')+1 : from]; len(bytes.TrimLeft(line, " \t")) > 0 {
		text = "\n" + text
	}
	if rest := s.src[to:]; len(bytes.TrimLeft(rest, " \t")) == 0 || bytes.TrimLeft(rest, " \t")[0] != '\n' {
		text += "\n"
	}
	*edits = append(*edits, edit{from, to, text})
}

// delta returns the Go source of a golden: the declarations of the
// generated files in after that are new or differ from before's, grouped by
// file (in file-name order) and in source order within a file, each file
// summarised by the names it adds, changes and removes.
func delta(header, pkg string, before, after map[string][]byte) ([]byte, error) {
	old, cur := map[string][]declaration{}, map[string][]declaration{}
	for _, g := range []struct {
		files map[string][]byte
		decls map[string][]declaration
	}{{before, old}, {after, cur}} {
		for p, b := range g.files {
			if !strings.HasSuffix(p, ".go") {
				continue
			}
			d, err := declarations(p, b)
			if err != nil {
				return nil, err
			}
			g.decls[p] = d
		}
	}
	// The types: the functions named after one may repeat another's.
	names := map[string]bool{}
	for _, ds := range cur {
		for _, d := range ds {
			if strings.HasPrefix(d.key, "type ") {
				names[d.name] = true
			}
		}
	}
	types := slices.Sorted(maps.Keys(names))

	var b bytes.Buffer
	b.WriteString(header)
	fmt.Fprintf(&b, "\npackage %s\n", pkg)
	all := maps.Clone(cur)
	maps.Copy(all, old)
	for _, p := range slices.Sorted(maps.Keys(all)) {
		was := map[string]declaration{}
		for _, d := range old[p] {
			was[d.key] = d
		}
		is := map[string]bool{}
		pool := slices.Clone(old[p]) // declarations an added one may repeat
		var added, changed, removed, likes []string
		repeated := map[string][]string{} // by the declaration they repeat
		var body strings.Builder
		for _, d := range cur[p] {
			is[d.key] = true
			o, ok := was[d.key]
			switch {
			case !ok:
				if like, ok := repeats(d, types, pool); ok {
					if repeated[like] == nil {
						likes = append(likes, like)
					}
					n := d.name // a method: its type names it
					if t, _, ok := strings.Cut(n, "."); ok {
						n = t
					}
					repeated[like] = append(repeated[like], n)
					continue
				}
				added = append(added, d.name)
				pool = append(pool, d)
				body.WriteString("\n" + d.text() + "\n")
			case o.text() != d.text():
				changed = append(changed, d.name)
				body.WriteString("\n" + elide(d, o) + "\n")
			}
		}
		for _, d := range old[p] {
			if !is[d.key] {
				removed = append(removed, d.name)
			}
		}
		if len(added)+len(likes)+len(changed)+len(removed) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n// ==== %s ====\n//\n", p[strings.LastIndex(p, "/")+1:])
		if len(added) > 0 {
			wrap(&b, "// added:", added)
		}
		if len(likes) > 0 {
			b.WriteString("// added, not shown: the same as another type's, with the type's name replaced:\n")
			for _, like := range likes {
				lead := "//  "
				if _, m, ok := strings.Cut(like, "."); ok {
					lead += " " + m + " of"
				}
				l := slices.Clone(repeated[like])
				l[len(l)-1] += " (as " + like + ")"
				wrap(&b, lead, l)
			}
		}
		if len(changed) > 0 {
			wrap(&b, "// changed:", changed)
		}
		if len(removed) > 0 {
			wrap(&b, "// removed:", removed)
		}
		b.WriteString(body.String())
	}
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("formatting the golden: %w\n%s", err, b.Bytes())
	}
	return out, nil
}

// repeats reports the declaration in pool that d, an added declaration,
// repeats for another type: a method of another type, or a function named
// after another type, whose text with that type's name replaced by d's
// type's is d's text.
func repeats(d declaration, types []string, pool []declaration) (string, bool) {
	kind, name, _ := strings.Cut(d.key, " ")
	text := d.text()
	switch kind {
	case "method":
		t, m, _ := strings.Cut(name, ".")
		for _, p := range pool {
			pk, pn, _ := strings.Cut(p.key, " ")
			u, pm, _ := strings.Cut(pn, ".")
			if pk == "method" && pm == m && u != t && strings.ReplaceAll(p.text(), u, t) == text {
				return p.name, true
			}
		}
	case "func":
		for _, t := range types {
			pre, post, ok := strings.Cut(name, t)
			if !ok {
				continue
			}
			for _, p := range pool {
				pk, pn, _ := strings.Cut(p.key, " ")
				if pk != "func" || len(pn) <= len(pre)+len(post) || !strings.HasPrefix(pn, pre) || !strings.HasSuffix(pn, post) {
					continue
				}
				if u := pn[len(pre) : len(pn)-len(post)]; u != t && strings.ReplaceAll(p.text(), u, t) == text {
					return p.name, true
				}
			}
		}
	}
	return "", false
}

// wrap writes a comment listing names after lead, wrapped before 100 columns.
func wrap(b *bytes.Buffer, lead string, names []string) {
	line := lead
	for i, n := range names {
		if i < len(names)-1 {
			n += ","
		}
		if len(line)+1+len(n) > 100 {
			b.WriteString(line + "\n")
			line = "//    "
		}
		line += " " + n
	}
	b.WriteString(line + "\n")
}

// TestDelta: each kind of change an overlay makes, on a small file.
func TestDelta(t *testing.T) {
	before := map[string][]byte{"p/a.go": []byte(`package p

const (
	A = "a"
	B = "b"
)

type T struct{ X int }

func (v *T) Decode(key string) bool {
	switch key {
	case "x":
		if lenient() {
			return true
		}
		v.X = 1
		return true
	case "y":
		one()
		two()
		three()
		return true
	}
	return false
}

func (v *T) Helper() int { return len("T") }

var Table = []string{
	"one",
	"two",
	"three",
}

func gone() {}
`)}
	after := map[string][]byte{"p/a.go": []byte(`package p

const (
	A = "a"
	B = "b"
	C = "c"
)

type T struct {
	X int
	Z string
}

func (v *T) Decode(key string) bool {
	switch key {
	case "x":
		v.X = 1
		return true
	case "y":
		one()
		two()
		three()
		return true
	case "z":
		return true
	}
	return false
}

func (v *T) Helper() int { return len("T") }

type U struct{}

func (v *U) Helper() int { return len("U") }

var Table = []string{
	"one",
	"two",
	"three",
	"four",
}
`)}
	got, err := delta("// header\n", "p", before, after)
	if err != nil {
		t.Fatal(err)
	}
	want := `// header

package p

// ==== a.go ====
//
// added: C, U
// added, not shown: the same as another type's, with the type's name replaced:
//   Helper of U (as T.Helper)
// changed: T, T.Decode, Table
// removed: gone

const C = "c"

type T struct {
	X int
	Z string
}

func (v *T) Decode(key string) bool {
	switch key {
	case "x":
		// removed:
		//	if lenient() {
		//		return true
		//	}
		v.X = 1
		return true
	// ... 1 unchanged case
	case "z":
		return true
	}
	return false
}

type U struct{}

var Table = []string{
	// ... 3 unchanged elements
	"four",
}
`
	if string(got) != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
