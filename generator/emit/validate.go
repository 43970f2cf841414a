package emit

import (
	"fmt"
	"math"
	"strings"

	"github.com/acpgen/acpgen/generator/ir"
	"github.com/dave/jennifer/jen"
)

// validators emits Validate/validate for every type. Validation is separate
// from decoding so values built in Go are checked the same way; it walks the
// whole value and reports every violation with its JSON pointer.
func (e *emitter) validators(f *jen.File) {
	for _, t := range e.m.Types {
		if t.Kind == ir.Alias && t.Target.Kind == ir.Named {
			continue // a Go alias shares its target's methods
		}
		if e.cold(t) {
			tableValidate(f, t, jen.Op("&").Id(objectTable(t)))
			continue
		}
		if e.coldUnion(t) {
			tableValidate(f, t, jen.Op("&").Id(unionTable(t.Union)))
			continue
		}
		if stringEnum(t) {
			tableValidate(f, t, jen.Op("&").Id(enumTable(t)))
			continue
		}
		if scalarAlias(t) {
			tableValidate(f, t, jen.Op("&").Id(scalarTable(t)))
			continue
		}
		var body []jen.Code
		switch t.Kind {
		case ir.Struct:
			body = e.structValidate(t)
			if t.Union != nil {
				body = append(body, jen.Id("x").Dot(t.Union.FieldName()).Dot(validateWith).Call(jen.Id("v")))
			}
		case ir.ObjectUnion, ir.ValueUnion:
			body = e.unionValidate(t.Union)
		case ir.Enum:
			body = e.enumValidate(t)
		case ir.Alias:
			body = e.valueValidate(t.Target, aliased(t.Target, "x"), false)
		}
		f.Comment(fmt.Sprintf("Validate reports every way x breaks the schema of %s, each with the JSON pointer of the offending value.", t.Name))
		f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id("Validate").Params().Error().Block(
			jen.Var().Id("v").Qual(WirePath, "Validator"),
			jen.Id("x").Dot(validateWith).Call(jen.Op("&").Id("v")),
			jen.Return(jen.Id("v").Dot("Err").Call()),
		)
		validateWithDoc(f, t.Name)
		f.Func().Params(jen.Id("x").Op("*").Id(t.Name)).Id(validateWith).Params(jen.Id("v").Op("*").Qual(WirePath, "Validator")).Block(body...)
		f.Line()
		if t.Kind == ir.Struct && t.Union != nil {
			validateWithDoc(f, t.Union.Name)
			f.Func().Params(jen.Id("x").Op("*").Id(t.Union.Name)).Id(validateWith).Params(jen.Id("v").Op("*").Qual(WirePath, "Validator")).Block(e.unionValidate(t.Union)...)
			f.Line()
		}
	}
	for i := 0; i < len(e.shapeChecks); i++ { // a check may request more
		f.Add(e.shapeChecks[i]).Line()
	}
	e.flushHelpers(f)
	e.flushPatterns(f)
	for _, r := range e.stringRules {
		f.Var().Id(r.name).Op("=").Add(wireName("StringRule")).Values(r.fields)
	}
}

// validateWith names the method that adds a value's violations to a
// wire.Validator at its position: what Validate, enclosing types and the
// runtime's table interpreter call (exported so runtime/wire can).
const validateWith = "ValidateWith"

func validateWithDoc(f *jen.File, name string) {
	f.Comment(fmt.Sprintf("ValidateWith adds every way x breaks the schema of %s to v, at v's position.", name))
}

func (e *emitter) structValidate(t *ir.Type) []jen.Code {
	var out []jen.Code
	for _, fl := range t.Fields {
		x := jen.Id("x").Dot(fl.Name)
		switch {
		case fieldPtr(fl):
			checks := e.valueValidate(fl.Ref, derefIfScalar(fl.Ref, x.Clone()), true)
			if len(checks) > 0 {
				out = append(out, jen.If(x.Clone().Op("!=").Nil()).Block(wrapPush(fl.JSON, checks)...))
			}
		case nilable(fl.Ref) && !fl.Required:
			checks := e.valueValidate(fl.Ref, x.Clone(), false)
			if len(checks) > 0 {
				out = append(out, jen.If(x.Clone().Op("!=").Nil()).Block(wrapPush(fl.JSON, checks)...))
			}
		default:
			out = append(out, wrapPush(fl.JSON, e.valueValidate(fl.Ref, x.Clone(), false))...)
		}
	}
	out = append(out, e.structRules(t)...)
	// An unknown member named like a declared one would be encoded twice.
	if len(t.Fields) > 0 {
		var names []jen.Code
		for _, fl := range t.Fields {
			names = append(names, jen.Lit(fl.JSON))
		}
		out = append(out, jen.If(jen.Len(jen.Id("x").Dot("Unknown")).Op(">").Lit(0)).Block(
			jen.Id("v").Dot("Declared").Call(append([]jen.Code{jen.Id("x").Dot("Unknown")}, names...)...)))
	}
	return out
}

func wrapPush(key string, checks []jen.Code) []jen.Code {
	if len(checks) == 0 {
		return nil
	}
	out := []jen.Code{jen.Id("v").Dot("Push").Call(jen.Lit(key))}
	out = append(out, checks...)
	return append(out, jen.Id("v").Dot("Pop").Call())
}

// valueValidate checks a value of shape r at the current position. ptr says
// expr is a pointer to a named type (whose validate has a pointer receiver anyway).
func (e *emitter) valueValidate(r *ir.Ref, expr *jen.Statement, ptr bool) []jen.Code {
	c := &checks{e: e, ptr: ptr}
	return c.of(r, expr)
}

// checksOf checks a value of shape r; subject prefixes the reasons of
// scalar checks ("name " when the value is a member name).
func (e *emitter) checksOf(r *ir.Ref, expr *jen.Statement, subject string) []jen.Code {
	c := &checks{e: e, subject: subject}
	return c.of(r, expr)
}

// of is the checks of a value of shape r.
func (c *checks) of(r *ir.Ref, expr *jen.Statement) []jen.Code {
	e := c.e
	switch r.Kind {
	case ir.String:
		c.stringChecks(r, expr)
	case ir.Int:
		c.intChecks(r, expr)
	case ir.Float:
		c.floatChecks(r, expr)
	case ir.Raw, ir.Routed:
		c.add(jen.Len(expr.Clone()).Op(">").Lit(0).Op("&&").Op("!").Qual(WirePath, "Valid").Call(expr.Clone()), "is not valid JSON")
		if r.Kind == ir.Routed {
			c.out = append(c.out, e.routedValidate(r, expr)...)
		}
	case ir.Array:
		c.arrayChecks(r, expr)
		elem := e.elemValidate(r, expr.Clone().Index(jen.Id("i")))
		if len(elem) > 0 {
			c.out = append(c.out, jen.For(jen.Id("i").Op(":=").Range().Add(expr.Clone())).Block(
				append(append([]jen.Code{jen.Id("v").Dot("PushIndex").Call(jen.Id("i"))}, elem...), jen.Id("v").Dot("Pop").Call())...))
		}
	case ir.Map:
		if r.Elem.Kind == ir.Raw && r.Elem.Const == nil && r.Elem.Enum == nil {
			// Every "_meta": one loop in the runtime instead of one per type.
			c.out = append(c.out, jen.Id("v").Dot("RawValues").Call(expr.Clone()))
			c.out = append(c.out, e.mapRules(r.Rules, expr)...)
			break
		}
		elem := e.elemValidate(r, jen.Id("val"))
		if len(elem) > 0 {
			c.out = append(c.out, jen.For(jen.List(jen.Id("k"), jen.Id("val")).Op(":=").Range().Add(expr.Clone())).Block(
				append(append([]jen.Code{jen.Id("v").Dot("Push").Call(jen.Id("k"))}, elem...), jen.Id("v").Dot("Pop").Call())...))
		}
		c.out = append(c.out, e.mapRules(r.Rules, expr)...)
	case ir.Named:
		if !needsValidate(r.Type) {
			break
		}
		if u := r.Type.Underlying(); scalarAlias(u) {
			inner := &checks{e: c.e, subject: c.subject}
			c.out = append(c.out, inner.of(u.Target, asScalar(u, expr, c.ptr))...)
			break
		}
		if tbl := c.e.tableVar(r.Type); tbl != "" {
			c.out = append(c.out, jen.Id(tbl).Dot("ValidateValue").Call(jen.Id("v"), addr(expr, c.ptr)))
		} else {
			c.out = append(c.out, expr.Clone().Dot(validateWith).Call(jen.Id("v")))
		}
	}
	c.enumCheck(r, expr)
	return c.out
}

// checks collects the statements that check one value.
type checks struct {
	e       *emitter
	subject string
	ptr     bool // a named value is given as a pointer to it
	out     []jen.Code
}

func (c *checks) add(cond *jen.Statement, reason string) {
	c.out = append(c.out, jen.If(cond).Block(jen.Id("v").Dot("Add").Call(jen.Lit(c.subject+reason))))
}

func (c *checks) stringChecks(r *ir.Ref, expr *jen.Statement) {
	if r.Const != nil {
		c.add(expr.Clone().Op("!=").Lit(r.Const.String), fmt.Sprintf("must be %q", r.Const.String))
	}
	if rule := c.e.stringRule(r, c.subject); rule != "" {
		c.out = append(c.out, jen.Id(rule).Dot("Check").Call(jen.Id("v"), expr.Clone()))
	}
}

// stringRule is a declared wire.StringRule holding one set of string keywords.
type stringRule struct {
	name, key string
	fields    jen.Dict
}

// stringRule names the package variable holding r's string keywords (one
// per distinct set, subject included), or "" when r has none.
func (e *emitter) stringRule(r *ir.Ref, subject string) string {
	fields := jen.Dict{}
	var key []string
	set := func(name string, val jen.Code, shown any) {
		fields[jen.Id(name)] = val
		key = append(key, fmt.Sprintf("%s=%v", name, shown))
	}
	if r.MinLength != nil && *r.MinLength > 0 {
		set("MinLength", jen.Lit(*r.MinLength), *r.MinLength)
	}
	if r.MaxLength != nil {
		set("MaxLength", jen.Lit(*r.MaxLength), *r.MaxLength)
		set("HasMaxLength", jen.True(), true)
	}
	if r.Pattern != "" {
		what := r.PatternName
		if what == "" {
			what = fmt.Sprintf("a string matching %q", r.Pattern)
		}
		set("Pattern", jen.Op("&").Id(e.patternVar(r.Pattern)), r.Pattern)
		set("PatternWhat", jen.Lit(what), what)
	}
	if f := formatVar(r); f != "" {
		set("Format", jen.Op("&").Add(wireName(f)), f)
	}
	if len(key) == 0 {
		return ""
	}
	if subject != "" {
		set("Subject", jen.Lit(subject), subject)
	}
	k := strings.Join(key, "\x00")
	for _, sr := range e.stringRules {
		if sr.key == k {
			return sr.name
		}
	}
	name := fmt.Sprintf("stringRule%d", len(e.stringRules))
	e.stringRules = append(e.stringRules, stringRule{name, k, fields})
	return name
}

// formatVar names the runtime/wire Format variable that checks r's format,
// or "" when it has none checked. Rules name only the formats they use, so
// the linker keeps only their checks.
func formatVar(r *ir.Ref) string {
	if r.URI {
		return "FormatURI"
	}
	return stringFormats[r.Format]
}

// stringFormats are the string formats checked besides uri (ir.Ref.URI), by
// the runtime/wire Format variable that checks them.
var stringFormats = map[string]string{
	"date-time": "FormatDateTime",
	"date":      "FormatDate",
	"uuid":      "FormatUUID",
	"regex":     "FormatRegex",
}

// elemValidate checks an array item or map value (an addressable elem) of container r.
func (e *emitter) elemValidate(r *ir.Ref, elem *jen.Statement) []jen.Code {
	if r.ElemNullable && pointerable(r.Elem) {
		checks := e.valueValidate(r.Elem, derefIfScalar(r.Elem, elem.Clone()), true)
		if len(checks) == 0 {
			return nil
		}
		return []jen.Code{jen.If(elem.Clone().Op("!=").Nil()).Block(checks...)}
	}
	return e.valueValidate(r.Elem, elem, false)
}

// needsValidate reports whether a named type has anything to check; every
// generated type has a validate method, so this only trims calls.
func needsValidate(t *ir.Type) bool {
	switch t = t.Underlying(); t.Kind {
	case ir.Enum:
		return !t.EnumOpen
	case ir.Alias:
		return t.Target.Kind != ir.String || len((&emitter{}).checksOf(t.Target, jen.Id("x"), "")) > 0
	}
	return true
}

// routedTypes are the method types a method-routed payload may be, nil
// when it is not checked: its routes are open, or one of them accepts any
// value (the extension methods' case).
func (e *emitter) routedTypes(r *ir.Ref) []*ir.Type {
	if r.OpenRoute {
		return nil
	}
	var out []*ir.Type
	for _, name := range r.Routes {
		t := e.m.TypeByDef(name)
		if t == nil || (t.Kind == ir.Alias && t.Target.Kind == ir.Raw) {
			return nil
		}
		out = append(out, t)
	}
	return out
}

// routedValidate checks a method-routed payload against the method types it
// may be (routedTypes).
func (e *emitter) routedValidate(r *ir.Ref, expr *jen.Statement) []jen.Code {
	types := e.routedTypes(r)
	if types == nil {
		return nil
	}
	var tries []jen.Code
	for _, t := range types {
		decode := jen.Qual(WirePath, "Decode").Call(expr.Clone(), jen.Op("&").Id("t"), jen.Qual(WirePath, "Strict"))
		if tbl := e.tableVar(t); tbl != "" {
			decode = jen.Qual(WirePath, "DecodeWith").Call(expr.Clone(), jen.Op("&").Id("t"), jen.Op("&").Id(tbl), jen.Qual(WirePath, "Strict"))
		}
		tries = append(tries, jen.Block(
			jen.Var().Id("t").Id(t.Name),
			jen.If(decode.Op("==").Nil().Op("&&").Id("t").Dot("Validate").Call().Op("==").Nil()).Block(jen.Id("ok").Op("=").True()),
		))
	}
	out := []jen.Code{jen.Id("ok").Op(":=").Len(expr.Clone()).Op("==").Lit(0)}
	out = append(out, tries...)
	return append(out, jen.If(jen.Op("!").Id("ok")).Block(jen.Id("v").Dot("Add").Call(jen.Lit("matches none of the method types "+strings.Join(r.Routes, ", ")))))
}

func (e *emitter) enumValidate(t *ir.Type) []jen.Code {
	if t.EnumOpen {
		return nil
	}
	var vals []jen.Code
	for _, v := range t.EnumValues {
		vals = append(vals, jen.Id(v.Name))
	}
	verb := "%q"
	if t.EnumBase.Kind == ir.Int {
		verb = "%d"
	}
	return []jen.Code{jen.Switch(jen.Op("*").Id("x")).Block(jen.Case(vals...), jen.Default().Block(
		jen.Id("v").Dot("Add").Call(jen.Qual("fmt", "Sprintf").Call(jen.Lit("unknown "+t.Name+" value "+verb), jen.Op("*").Id("x")))))}
}

func (e *emitter) unionValidate(u *ir.Union) []jen.Code {
	var out []jen.Code
	out = append(out, jen.Id("n").Op(":=").Lit(0))
	for _, v := range u.Variants {
		set := jen.Id("x").Dot(v.Name).Op("!=").Nil()
		if v.Null {
			set = jen.Id("x").Dot(v.Name)
		}
		var body []jen.Code
		body = append(body, jen.Id("n").Op("++"))
		if !v.Null {
			expr := jen.Id("x").Dot(v.Name)
			if !nilable(v.Payload) {
				expr = derefIfScalar(v.Payload, expr)
			}
			body = append(body, e.valueValidate(v.Payload, expr, true)...)
		}
		if v.Role == ir.CatchAll {
			var known []jen.Code
			for _, o := range u.Variants {
				if o.Role == ir.Tagged {
					known = append(known, jen.Lit(o.Tag))
				}
			}
			tagField := jen.Id("x").Dot(v.Name).Dot(ir.GoName(u.Discriminator))
			body = append(body, jen.Switch(tagField).Block(jen.Case(known...).Block(
				jen.Id("v").Dot("AddAt").Call(jen.Lit(u.Discriminator), jen.Lit("is a known "+u.Discriminator+"; the catch-all variant "+v.Name+" is for unknown ones")))))
		}
		out = append(out, jen.If(set).Block(body...))
	}
	if keepsUnknown(u) {
		out = append(out, unknownValidate(u))
	}
	return append(out, variantsCheck(u))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func intRange(format string) (int64, float64) {
	switch format {
	case "int32":
		return math.MinInt32, math.MaxInt32
	case "uint16":
		return 0, math.MaxUint16
	case "uint32":
		return 0, math.MaxUint32
	case "uint64":
		return 0, math.MaxUint64
	}
	return math.MinInt64, math.MaxInt64
}
