package wire

import "unicode/utf8"

// A schema's pattern keyword is matched by a program the generator compiles
// from the pattern with Go's regexp/syntax (internal/reprog), emitted as
// static data and run here as a Thompson NFA. The strings that match are
// the ones Go's regexp matches, and a binary with generated validators does
// not link the regexp packages and their Unicode tables.

// PatternOp is the kind of one PatternInst.
type PatternOp uint8

// The instructions of a pattern program.
const (
	PatternFail     PatternOp = iota // no thread continues
	PatternMatch                     // the pattern matched
	PatternAlt                       // continue at Out and at Arg
	PatternNop                       // continue at Out (a capture or no-op)
	PatternEmpty                     // continue at Out when the EmptyOp flags in Arg hold here
	PatternRune                      // consume a rune in one of Runes' [lo, hi] pairs
	PatternAny                       // consume any rune
	PatternAnyNotNL                  // consume any rune but '\n'
)

// Zero-width assertions, the bits of a PatternEmpty's Arg (the values of
// regexp/syntax's EmptyOp).
const (
	EmptyBeginLine = 1 << iota
	EmptyEndLine
	EmptyBeginText
	EmptyEndText
	EmptyWordBoundary
	EmptyNoWordBoundary
)

// PatternInst is one instruction of a pattern program.
type PatternInst struct {
	Op    PatternOp
	Out   uint32
	Arg   uint32
	Runes []rune // PatternRune: sorted [lo, hi] pairs, case folding expanded
}

// Pattern is a compiled schema pattern: Source for messages, the program
// and its entry point.
type Pattern struct {
	Source string
	Prog   []PatternInst
	Start  uint32
}

// smallProg is the program length MatchString runs without allocating.
const smallProg = 64

// MatchString reports whether s contains a match of the pattern anywhere,
// as regexp's MatchString does (patterns are not implicitly anchored).
func (p *Pattern) MatchString(s string) bool {
	var seen [smallProg]uint32
	var a, b [smallProg]uint32
	m := matcher{p: p, seen: seen[:]}
	cur, next := a[:0], b[:0]
	if len(p.Prog) > smallProg {
		m.seen = make([]uint32, len(p.Prog))
		cur, next = make([]uint32, 0, len(p.Prog)), make([]uint32, 0, len(p.Prog))
	}
	return m.run(s, cur, next)
}

// matcher holds the state of one MatchString run: seen marks the
// instructions a step's threads already reached, by step number.
type matcher struct {
	p    *Pattern
	seen []uint32
	gen  uint32
}

// run steps every thread over s, one rune at a time; cur and next are
// empty lists with room for every instruction.
func (m *matcher) run(s string, cur, next []uint32) bool {
	m.gen = 1
	for i := 0; ; {
		// cur holds the threads at offset i; a match may start here too.
		var ok bool
		if cur, ok = m.add(cur, m.p.Start, emptyFlags(s, i)); ok {
			return true
		}
		if i == len(s) {
			return false
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		m.gen++
		next = next[:0]
		flags := emptyFlags(s, i+w)
		for _, pc := range cur {
			if m.p.Prog[pc].consumes(r) {
				if next, ok = m.add(next, m.p.Prog[pc].Out, flags); ok {
					return true
				}
			}
		}
		cur, next = next, cur
		i += w
	}
}

// add follows pc's empty transitions at a position with the given
// assertion flags, appending the rune-consuming instructions reached to
// list; it reports whether a thread reached PatternMatch.
func (m *matcher) add(list []uint32, pc uint32, flags uint32) ([]uint32, bool) {
	if m.seen[pc] == m.gen {
		return list, false
	}
	m.seen[pc] = m.gen
	in := &m.p.Prog[pc]
	switch in.Op {
	case PatternMatch:
		return list, true
	case PatternAlt:
		list, ok := m.add(list, in.Out, flags)
		if ok {
			return list, true
		}
		return m.add(list, in.Arg, flags)
	case PatternNop:
		return m.add(list, in.Out, flags)
	case PatternEmpty:
		if in.Arg&^flags == 0 {
			return m.add(list, in.Out, flags)
		}
	case PatternRune, PatternAny, PatternAnyNotNL:
		list = append(list, pc)
	}
	return list, false
}

// consumes reports whether the instruction accepts rune r.
func (in *PatternInst) consumes(r rune) bool {
	switch in.Op {
	case PatternAny:
		return true
	case PatternAnyNotNL:
		return r != '\n'
	}
	for j := 0; j+1 < len(in.Runes); j += 2 {
		if in.Runes[j] <= r && r <= in.Runes[j+1] {
			return true
		}
	}
	return false
}

// emptyFlags is the set of zero-width assertions that hold at byte offset
// i of s.
func emptyFlags(s string, i int) uint32 {
	var f uint32
	before, after := rune(-1), rune(-1)
	if i > 0 {
		before, _ = utf8.DecodeLastRuneInString(s[:i])
	}
	if i < len(s) {
		after, _ = utf8.DecodeRuneInString(s[i:])
	}
	if i == 0 {
		f |= EmptyBeginText | EmptyBeginLine
	} else if before == '\n' {
		f |= EmptyBeginLine
	}
	if i == len(s) {
		f |= EmptyEndText | EmptyEndLine
	} else if after == '\n' {
		f |= EmptyEndLine
	}
	if wordRune(before) != wordRune(after) {
		f |= EmptyWordBoundary
	} else {
		f |= EmptyNoWordBoundary
	}
	return f
}

// wordRune reports whether r is an ASCII word character, what \b tests.
func wordRune(r rune) bool {
	return r == '_' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
}
