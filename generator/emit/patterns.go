package emit

import (
	"fmt"

	"github.com/acpgen/acpgen/internal/reprog"
	"github.com/acpgen/acpgen/runtime/wire"
	"github.com/dave/jennifer/jen"
)

// A pattern keyword becomes a wire.Pattern variable: the program
// internal/reprog compiles the pattern to, laid out as static data, so the
// generated package neither compiles a regexp at init nor links the regexp
// packages.

type pattern struct {
	name, re string
	prog     *wire.Pattern
	err      error
}

// patternVar names the variable holding pattern re's program, one per
// distinct pattern.
func (e *emitter) patternVar(re string) string {
	for _, p := range e.patterns {
		if p.re == re {
			return p.name
		}
	}
	name := fmt.Sprintf("pattern%d", len(e.patterns))
	prog, err := reprog.Compile(re)
	e.patterns = append(e.patterns, pattern{name, re, prog, err})
	return name
}

// flushPatterns declares the pattern variables; a pattern the schema's
// loader accepted and reprog cannot translate is a generator bug, reported
// by patternErr.
func (e *emitter) flushPatterns(f *jen.File) {
	for _, p := range e.patterns {
		if p.err != nil {
			continue
		}
		var insts []jen.Code
		for _, in := range p.prog.Prog {
			insts = append(insts, instLit(in))
		}
		f.Var().Id(p.name).Op("=").Add(wireName("Pattern")).Values(jen.Dict{
			jen.Id("Source"): jen.Lit(p.prog.Source),
			jen.Id("Start"):  jen.Lit(int(p.prog.Start)),
			jen.Id("Prog"):   jen.Index().Add(wireName("PatternInst")).Values(insts...),
		})
	}
}

// patternErr is the first pattern reprog could not translate.
func (e *emitter) patternErr() error {
	for _, p := range e.patterns {
		if p.err != nil {
			return fmt.Errorf("emit: %w (a generator bug: the loader accepted it)", p.err)
		}
	}
	return nil
}

var patternOps = [...]string{
	wire.PatternFail:     "PatternFail",
	wire.PatternMatch:    "PatternMatch",
	wire.PatternAlt:      "PatternAlt",
	wire.PatternNop:      "PatternNop",
	wire.PatternEmpty:    "PatternEmpty",
	wire.PatternRune:     "PatternRune",
	wire.PatternAny:      "PatternAny",
	wire.PatternAnyNotNL: "PatternAnyNotNL",
}

// instLit is one instruction as a composite literal, zero fields left out.
func instLit(in wire.PatternInst) jen.Code {
	d := jen.Dict{jen.Id("Op"): wireName(patternOps[in.Op])}
	if in.Out != 0 {
		d[jen.Id("Out")] = jen.Lit(int(in.Out))
	}
	switch {
	case in.Op == wire.PatternEmpty:
		d[jen.Id("Arg")] = emptyFlags(in.Arg)
	case in.Arg != 0:
		d[jen.Id("Arg")] = jen.Lit(int(in.Arg))
	}
	if in.Runes != nil {
		var rs []jen.Code
		for _, r := range in.Runes {
			rs = append(rs, jen.LitRune(r))
		}
		d[jen.Id("Runes")] = jen.Index().Rune().Values(rs...)
	}
	return jen.Values(d)
}

// emptyNames names runtime/wire's assertion flags, by value.
var emptyNames = []struct {
	bit  uint32
	name string
}{
	{wire.EmptyBeginLine, "EmptyBeginLine"},
	{wire.EmptyEndLine, "EmptyEndLine"},
	{wire.EmptyBeginText, "EmptyBeginText"},
	{wire.EmptyEndText, "EmptyEndText"},
	{wire.EmptyWordBoundary, "EmptyWordBoundary"},
	{wire.EmptyNoWordBoundary, "EmptyNoWordBoundary"},
}

// emptyFlags writes a PatternEmpty's assertions by name (wire.EmptyBeginText).
func emptyFlags(arg uint32) *jen.Statement {
	var x *jen.Statement
	for _, f := range emptyNames {
		switch {
		case arg&f.bit == 0:
		case x == nil:
			x = wireName(f.name)
		default:
			x = x.Op("|").Add(wireName(f.name))
		}
	}
	if x == nil {
		return jen.Lit(0)
	}
	return x
}
