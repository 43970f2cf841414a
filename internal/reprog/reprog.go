// Package reprog compiles a schema pattern into the program runtime/wire's
// Pattern runs: Go's regexp/syntax parses, simplifies and compiles it as
// regexp.Compile does, and each instruction is translated, with case
// folding expanded into rune ranges, so the runtime needs no regexp package.
package reprog

import (
	"fmt"
	"slices"
	"unicode"

	"github.com/acpgen/acpgen/runtime/wire"
	"regexp/syntax"
)

// Compile compiles pattern (RE2 syntax, as regexp.Compile reads it).
func Compile(pattern string) (*wire.Pattern, error) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, err
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil, err
	}
	p := &wire.Pattern{Source: pattern, Start: uint32(prog.Start)}
	for i := range prog.Inst {
		in, err := translate(&prog.Inst[i])
		if err != nil {
			return nil, fmt.Errorf("pattern %q: %w", pattern, err)
		}
		p.Prog = append(p.Prog, in)
	}
	return p, nil
}

// translate turns one regexp/syntax instruction into its wire form.
func translate(in *syntax.Inst) (wire.PatternInst, error) {
	out := wire.PatternInst{Out: in.Out}
	switch in.Op {
	case syntax.InstFail:
		out.Op = wire.PatternFail
	case syntax.InstMatch:
		out.Op = wire.PatternMatch
	case syntax.InstAlt:
		out.Op, out.Arg = wire.PatternAlt, in.Arg
	case syntax.InstNop, syntax.InstCapture:
		out.Op = wire.PatternNop
	case syntax.InstEmptyWidth:
		out.Op, out.Arg = wire.PatternEmpty, in.Arg
	case syntax.InstRune, syntax.InstRune1:
		out.Op, out.Runes = wire.PatternRune, runeRanges(in)
	case syntax.InstRuneAny:
		out.Op = wire.PatternAny
	case syntax.InstRuneAnyNotNL:
		out.Op = wire.PatternAnyNotNL
	default:
		return out, fmt.Errorf("instruction %v has no wire form", in.Op)
	}
	return out, nil
}

// runeRanges is the [lo, hi] pairs a rune instruction accepts. A single
// rune with case folding (what (?i) compiles to) matches its whole
// simple-fold orbit; ranges arrive from the parser already folded.
func runeRanges(in *syntax.Inst) []rune {
	if len(in.Rune) != 1 {
		return slices.Clone(in.Rune)
	}
	r0 := in.Rune[0]
	rs := []rune{r0}
	if syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
		for r := unicode.SimpleFold(r0); r != r0; r = unicode.SimpleFold(r) {
			rs = append(rs, r)
		}
	}
	slices.Sort(rs)
	var pairs []rune
	for _, r := range rs {
		pairs = append(pairs, r, r)
	}
	return pairs
}
