package emit

import (
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/acpgen/acpgen/generator/ir"
	"github.com/acpgen/acpgen/generator/load"
	"github.com/dave/jennifer/jen"
)

// This file emits the checks of number, array and object-wide keywords.
// What is the same for every type (uniqueness, multipleOf, trying a value
// against a shape) is in runtime/wire; the generated code only calls it.

// intChecks checks an integer against its bounds, each turned into an
// inclusive integer bound (exclusiveMinimum 0.5 is minimum 1); a bound the
// Go type already guarantees emits nothing.
func (c *checks) intChecks(r *ir.Ref, expr *jen.Statement) {
	typeLo, typeHi := formatBounds(r.Format)
	if lo, what := intLowerBound(r); lo != nil && lo.Cmp(typeLo) > 0 {
		if lo.Cmp(typeHi) > 0 {
			c.out = append(c.out, jen.Id("v").Dot("Add").Call(jen.Lit(c.subject+what)))
		} else {
			c.add(expr.Clone().Op("<").Add(bigLit(lo)), what)
		}
	}
	if hi, what := intUpperBound(r); hi != nil && hi.Cmp(typeHi) < 0 {
		if hi.Cmp(typeLo) < 0 {
			c.out = append(c.out, jen.Id("v").Dot("Add").Call(jen.Lit(c.subject+what)))
		} else {
			c.add(expr.Clone().Op(">").Add(bigLit(hi)), what)
		}
	}
	if r.MultipleOf != nil {
		fn, conv := "IntMultipleOf", jen.Int64()
		if strings.HasPrefix(r.Format, "u") {
			fn, conv = "UintMultipleOf", jen.Uint64()
		}
		c.add(jen.Op("!").Qual(WirePath, fn).Call(conv.Call(expr.Clone()), jen.Lit(*r.MultipleOf)), "must be a multiple of "+*r.MultipleOf)
	}
}

// intLowerBound is the smallest integer the minimum and exclusiveMinimum
// allow, with the reason of the stricter one.
func intLowerBound(r *ir.Ref) (*big.Int, string) {
	var lo *big.Int
	what := ""
	if b, ok := rat(r.Minimum); ok {
		lo, what = ceil(b), "must be at least "+*r.Minimum
	}
	if b, ok := rat(r.ExclusiveMinimum); ok {
		if x := new(big.Int).Add(floor(b), big.NewInt(1)); lo == nil || x.Cmp(lo) > 0 {
			lo, what = x, "must be greater than "+*r.ExclusiveMinimum
		}
	}
	return lo, what
}

// intUpperBound is the largest integer the maximum and exclusiveMaximum allow.
func intUpperBound(r *ir.Ref) (*big.Int, string) {
	var hi *big.Int
	what := ""
	if b, ok := rat(r.Maximum); ok {
		hi, what = floor(b), "must be at most "+*r.Maximum
	}
	if b, ok := rat(r.ExclusiveMaximum); ok {
		if x := new(big.Int).Sub(ceil(b), big.NewInt(1)); hi == nil || x.Cmp(hi) < 0 {
			hi, what = x, "must be less than "+*r.ExclusiveMaximum
		}
	}
	return hi, what
}

func rat(s *string) (*big.Rat, bool) {
	if s == nil {
		return nil, false
	}
	return new(big.Rat).SetString(*s)
}

func floor(r *big.Rat) *big.Int {
	q, m := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int))
	_ = m // DivMod rounds towards negative infinity for a positive divisor
	return q
}

func ceil(r *big.Rat) *big.Int {
	q := floor(r)
	if !r.IsInt() {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// formatBounds is the range of an integer format's Go type.
func formatBounds(format string) (*big.Int, *big.Int) {
	lo, hi := intRange(format)
	h, _ := new(big.Float).SetFloat64(hi).Int(nil)
	if format == "uint64" {
		h = new(big.Int).SetUint64(^uint64(0))
	}
	return big.NewInt(lo), h
}

func bigLit(b *big.Int) *jen.Statement {
	if b.IsInt64() {
		return jen.Lit(int(b.Int64()))
	}
	return jen.Lit(b.Uint64())
}

func (c *checks) floatChecks(r *ir.Ref, expr *jen.Statement) {
	c.add(jen.Qual("math", "IsNaN").Call(expr.Clone()).Op("||").Qual("math", "IsInf").Call(expr.Clone(), jen.Lit(0)), "must be a finite number")
	bound := func(s *string, op, what string) {
		if s == nil {
			return
		}
		if x, err := strconv.ParseFloat(*s, 64); err == nil {
			c.add(expr.Clone().Op(op).Lit(x), what+*s)
		}
	}
	bound(r.Minimum, "<", "must be at least ")
	bound(r.Maximum, ">", "must be at most ")
	bound(r.ExclusiveMinimum, "<=", "must be greater than ")
	bound(r.ExclusiveMaximum, ">=", "must be less than ")
	if r.MultipleOf != nil {
		c.add(jen.Op("!").Qual(WirePath, "FloatMultipleOf").Call(expr.Clone(), jen.Lit(*r.MultipleOf)), "must be a multiple of "+*r.MultipleOf)
	}
}

func (c *checks) arrayChecks(r *ir.Ref, expr *jen.Statement) {
	if r.MinItems != nil && *r.MinItems > 0 {
		c.add(jen.Len(expr.Clone()).Op("<").Lit(*r.MinItems), fmt.Sprintf("must have at least %d item%s", *r.MinItems, plural(*r.MinItems)))
	}
	if r.MaxItems != nil {
		c.add(jen.Len(expr.Clone()).Op(">").Lit(*r.MaxItems), fmt.Sprintf("must have at most %d item%s", *r.MaxItems, plural(*r.MaxItems)))
	}
	if r.UniqueItems {
		// Items are compared as JSON, the way uniqueItems defines equality.
		enc := c.e.appendCall(r, jen.Nil(), expr.Clone(), false)
		c.out = append(c.out, jen.If(jen.List(jen.Id("i"), jen.Id("j"), jen.Id("dup")).Op(":=").Qual(WirePath, "DuplicateItems").Call(enc), jen.Id("dup")).Block(
			jen.Id("v").Dot("Add").Call(jen.Qual("fmt", "Sprintf").Call(jen.Lit(c.subject+"items %d and %d are equal; they must be unique"), jen.Id("i"), jen.Id("j")))))
	}
}

// mapRules checks a map's member names and, where patterns or an
// additionalProperties schema apply to raw values, the values.
func (e *emitter) mapRules(o *ir.ObjectRules, expr *jen.Statement) []jen.Code {
	if o == nil {
		return nil
	}
	var out []jen.Code
	if body := e.memberRules(o, jen.Id("k"), jen.Id("val")); len(body) > 0 {
		val := jen.Id("val")
		if !e.usesValue(o) {
			val = jen.Id("_")
		}
		out = append(out, jen.For(jen.List(jen.Id("k"), val).Op(":=").Range().Add(expr.Clone())).Block(
			append(append([]jen.Code{jen.Id("v").Dot("Push").Call(jen.Id("k"))}, body...), jen.Id("v").Dot("Pop").Call())...))
	}
	has := func(name string) *jen.Statement {
		return jen.Func().Params().Bool().Block(jen.List(jen.Id("_"), jen.Id("ok")).Op(":=").Add(expr.Clone()).Index(jen.Lit(name)), jen.Return(jen.Id("ok"))).Call()
	}
	return append(out, dependentChecks(o, has)...)
}

// usesValue reports whether member checks read the member's value.
func (e *emitter) usesValue(o *ir.ObjectRules) bool {
	if o.Additional != nil {
		return true
	}
	for _, p := range o.Patterns {
		if p.Ref != nil {
			return true
		}
	}
	return false
}

// memberRules checks one member of an object that is not declared: its
// name, and its raw value against every pattern it matches, or else against
// additionalProperties.
func (e *emitter) memberRules(o *ir.ObjectRules, name, val *jen.Statement) []jen.Code {
	var out []jen.Code
	if o.Names != nil {
		out = append(out, e.nameChecks(o.Names, name)...)
	}
	if len(o.Patterns) == 0 && o.Additional == nil && !o.Closed {
		return out
	}
	var other []jen.Code
	switch {
	case o.Additional != nil:
		other = []jen.Code{jen.Id(e.shapeCheck(o.Additional)).Call(jen.Id("v"), val.Clone())}
	case o.Closed:
		other = []jen.Code{jen.Id("v").Dot("Add").Call(jen.Lit("is not allowed: " + allowedNames(o)))}
	}
	if len(o.Patterns) == 0 {
		return append(out, other...)
	}
	out = append(out, jen.Id("matched").Op(":=").False())
	for _, p := range o.Patterns {
		body := []jen.Code{jen.Id("matched").Op("=").True()}
		if p.Ref != nil {
			body = append(body, jen.Id(e.shapeCheck(p.Ref)).Call(jen.Id("v"), val.Clone()))
		}
		out = append(out, jen.If(jen.Id(e.patternVar(p.Pattern)).Dot("MatchString").Call(name.Clone())).Block(body...))
	}
	if len(other) == 0 {
		return append(out, jen.Id("_").Op("=").Id("matched"))
	}
	return append(out, jen.If(jen.Op("!").Id("matched")).Block(other...))
}

func allowedNames(o *ir.ObjectRules) string {
	if len(o.Patterns) == 0 {
		return "the object has no members besides those it declares"
	}
	var ps []string
	for _, p := range o.Patterns {
		ps = append(ps, strconv.Quote(p.Pattern))
	}
	return "other members' names must match " + strings.Join(ps, " or ")
}

// nameChecks checks a member name against propertyNames.
func (e *emitter) nameChecks(names *ir.Ref, name *jen.Statement) []jen.Code {
	checks := e.checksOf(names, jen.Id("name"), "name ")
	if len(checks) == 0 {
		return nil
	}
	return []jen.Code{jen.Block(append([]jen.Code{jen.Id("name").Op(":=").Add(goType(names)).Call(name)}, checks...)...)}
}

// dependentChecks checks dependentRequired; has tells whether a member is present.
func dependentChecks(o *ir.ObjectRules, has func(string) *jen.Statement) []jen.Code {
	var out []jen.Code
	for _, d := range o.Dependent {
		var missing []jen.Code
		for _, r := range d.Requires {
			missing = append(missing, jen.If(jen.Op("!").Parens(has(r))).Block(
				jen.Id("v").Dot("AddAt").Call(jen.Lit(d.Name), jen.Lit(fmt.Sprintf("requires member %q beside it", r)))))
		}
		out = append(out, jen.If(has(d.Name)).Block(missing...))
	}
	return out
}

// shapeCheck returns the helper that checks a raw value against shape r by
// decoding it strictly, then validating it; one helper per shape.
func (e *emitter) shapeCheck(r *ir.Ref) string {
	if e.shapeNames == nil {
		e.shapeNames = map[*ir.Ref]string{}
	}
	name, ok := e.shapeNames[r]
	if !ok {
		// Numbered, not named by shape: two strings may differ in constraints.
		name = fmt.Sprintf("check%s%d", shapeName(r), len(e.shapeNames))
		e.shapeNames[r] = name
		body := []jen.Code{jen.Id("d").Op(":=").Qual(WirePath, "NewDecoder").Call(jen.Id("raw"), jen.Qual(WirePath, "Strict"))}
		body = append(body, e.decodeInto(r)...)
		body = append(body,
			jen.If(jen.Err().Op("==").Nil()).Block(jen.Err().Op("=").Id("d").Dot("Finish").Call()),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Id("v").Dot("Add").Call(jen.Err().Dot("Error").Call()), jen.Return()))
		body = append(body, e.valueValidate(r, jen.Id("x"), false)...)
		body = append(body, jen.Id("_").Op("=").Id("x")) // in case no check reads it
		e.shapeChecks = append(e.shapeChecks, jen.Func().Id(name).Params(jen.Id("v").Op("*").Qual(WirePath, "Validator"), jen.Id("raw").Qual(WirePath, "Raw")).Block(body...))
	}
	return name
}

// structRules checks the object-wide keywords of a struct: the names and
// values of its unknown members, the names of its declared ones and their
// values where a pattern also applies, and dependentRequired.
func (e *emitter) structRules(t *ir.Type) []jen.Code {
	o := t.Rules
	if o == nil {
		return nil
	}
	var out []jen.Code
	if body := e.memberRules(o, jen.Id("u").Dot("Name"), jen.Id("u").Dot("Value")); len(body) > 0 {
		out = append(out, jen.For(jen.List(jen.Id("_"), jen.Id("u")).Op(":=").Range().Id("x").Dot("Unknown")).Block(
			append(append([]jen.Code{jen.Id("v").Dot("Push").Call(jen.Id("u").Dot("Name"))}, body...), jen.Id("v").Dot("Pop").Call())...))
	}
	for _, fl := range t.Fields {
		if body := e.declaredRules(o, fl); len(body) > 0 {
			out = append(out, jen.If(present(t, fl.JSON)).Block(
				append(append([]jen.Code{jen.Id("v").Dot("Push").Call(jen.Lit(fl.JSON))}, body...), jen.Id("v").Dot("Pop").Call())...))
		}
	}
	return append(out, dependentChecks(o, func(name string) *jen.Statement { return present(t, name) })...)
}

// declaredRules checks a declared member against propertyNames and the
// patterns its name matches (checked here, at generation, with the same
// regexp package the generated code uses).
func (e *emitter) declaredRules(o *ir.ObjectRules, fl *ir.Field) []jen.Code {
	var out []jen.Code
	if o.Names != nil {
		out = append(out, e.nameChecks(o.Names, jen.Lit(fl.JSON))...)
	}
	for _, p := range o.Patterns {
		if p.Ref == nil || !regexp.MustCompile(p.Pattern).MatchString(fl.JSON) {
			continue
		}
		val := jen.Id("x").Dot(fl.Name)
		app := e.appendValue(fl.Ref, val)
		if fieldPtr(fl) {
			app = e.appendPointed(fl.Ref, val)
		}
		out = append(out, jen.Block(jen.Var().Id("b").Index().Byte(), app, jen.Id(e.shapeCheck(p.Ref)).Call(jen.Id("v"), jen.Id("b"))))
	}
	return out
}

// present says whether member name of struct t is present: a declared
// member held by pointer (or as a nil-able value) when not nil, a required
// one always, any other when among the unknown members.
func present(t *ir.Type, name string) *jen.Statement {
	if fl := t.Member(name); fl != nil {
		if fieldPtr(fl) || (nilable(fl.Ref) && !fl.Required) {
			return jen.Id("x").Dot(fl.Name).Op("!=").Nil()
		}
		return jen.True()
	}
	return jen.Qual(WirePath, "HasMember").Call(jen.Id("x").Dot("Unknown"), jen.Lit(name))
}

// enumCheck checks an inline enum: the value is one of the listed ones.
// Values the Go type cannot hold (a fraction for an integer) are left out,
// as no value of the type equals them.
func (c *checks) enumCheck(r *ir.Ref, expr *jen.Statement) {
	if r.Enum == nil {
		return
	}
	var vals []jen.Code
	var shown []string
	for _, n := range r.Enum {
		shown = append(shown, string(n.JSON()))
		if lit := enumLit(r, n); lit != nil {
			vals = append(vals, lit)
		}
	}
	fail := jen.Id("v").Dot("Add").Call(jen.Lit(c.subject + "must be one of " + strings.Join(shown, ", ")))
	if len(vals) == 0 {
		c.out = append(c.out, fail)
		return
	}
	c.out = append(c.out, jen.Switch(expr.Clone()).Block(jen.Case(vals...), jen.Default().Block(fail)))
}

func enumLit(r *ir.Ref, n *load.Node) jen.Code {
	switch {
	case r.Kind == ir.String && n.Kind == load.String:
		return jen.Lit(n.String)
	case r.Kind == ir.Bool && n.Kind == load.Bool:
		return jen.Lit(n.Bool)
	case r.Kind == ir.Float && n.Kind == load.Number:
		if f, err := strconv.ParseFloat(n.Number.String(), 64); err == nil {
			return jen.Lit(f)
		}
	case r.Kind == ir.Int && n.Kind == load.Number:
		b, ok := new(big.Int).SetString(n.Number.String(), 10)
		lo, hi := formatBounds(r.Format)
		if ok && b.Cmp(lo) >= 0 && b.Cmp(hi) <= 0 {
			return bigLit(b)
		}
	}
	return nil
}
