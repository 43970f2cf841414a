package emit

import (
	"fmt"
	"strings"

	"github.com/acpgen/acpgen/generator/facts"
	"github.com/acpgen/acpgen/generator/ir"
	"github.com/dave/jennifer/jen"
)

// extras emits what overlays mean beyond JSON Schema: the table of applied
// overlays, history views without turn-only members, accessors for typed
// _meta namespaces, and the roots and filter helpers.
func (e *emitter) extras(f *jen.File) {
	e.overlayTable(f)
	for _, t := range e.m.Types {
		if t.Kind != ir.Struct {
			continue
		}
		e.historyView(f, t)
		for _, fl := range t.Fields {
			for _, ns := range fl.Meta {
				e.metaAccessors(f, t, fl, ns)
			}
		}
	}
	roots := false
	for _, r := range e.o.Semantics.Roots {
		if t := e.m.TypeByDef(r.Def); t != nil {
			e.rootsHelpers(f, t, r)
			roots = true
		}
	}
	if roots {
		f.Comment("DedupeRoots returns additional without entries equal to primary and without repeated entries, keeping the order of first occurrence; it never returns nil. Clients should send root lists cleaned this way; entries are compared as exact strings, never normalized.")
		f.Func().Id("DedupeRoots").Params(jen.Id("primary").String(), jen.Id("additional").Index().String()).Index().String().Block(
			jen.Id("out").Op(":=").Make(jen.Index().String(), jen.Lit(0), jen.Len(jen.Id("additional"))),
			jen.Id("seen").Op(":=").Map(jen.String()).Bool().Values(jen.Dict{jen.Id("primary"): jen.True()}),
			jen.For(jen.List(jen.Id("_"), jen.Id("d")).Op(":=").Range().Id("additional")).Block(
				jen.If(jen.Op("!").Id("seen").Index(jen.Id("d"))).Block(
					jen.Id("seen").Index(jen.Id("d")).Op("=").True(),
					jen.Id("out").Op("=").Append(jen.Id("out"), jen.Id("d")),
				),
			),
			jen.Return(jen.Id("out")),
		)
		f.Line()
	}
	for _, flt := range e.o.Semantics.Filters {
		req, item := e.m.TypeByDef(flt.Request), e.m.TypeByDef(flt.Item)
		if req != nil && item != nil {
			e.filterHelper(f, req, item, flt)
		}
	}
}

// checkExtras rejects overlay semantics the helpers cannot express, before
// anything is rendered.
func (e *emitter) checkExtras() error {
	for _, t := range e.m.Types {
		if t.Name == "OverlayInfo" || t.Name == "Overlays" || t.Name == "DedupeRoots" {
			return fmt.Errorf("%s#%s: type %s collides with a generated helper", t.File, t.Pointer, t.Name)
		}
		if t.Kind != ir.Struct {
			continue
		}
		for _, fl := range t.Fields {
			if len(fl.Meta) == 0 {
				continue
			}
			if fl.Ref.Kind != ir.Map || fl.Ref.Elem.Kind != ir.Raw || fl.Ref.ElemNullable {
				return fmt.Errorf("%s#%s: typed _meta namespaces need a free-form object member", t.File, fl.Pointer)
			}
			for _, ns := range fl.Meta {
				if ns.Ref.Kind != ir.Named {
					return fmt.Errorf("%s#%s: the _meta namespace %q must be an object type", t.File, fl.Pointer, ns.Key)
				}
				name := ns.Ref.Type.Name
				for _, other := range t.Fields {
					if other.Name == name || other.Name == "Set"+name {
						return fmt.Errorf("%s#%s: accessor %s of _meta namespace %q collides with a member", t.File, fl.Pointer, name, ns.Key)
					}
				}
			}
		}
	}
	for _, r := range e.o.Semantics.Roots {
		t := e.m.TypeByDef(r.Def)
		if t == nil {
			continue
		}
		p, a := t.Member(r.Primary), t.Member(r.Additional)
		if p == nil || a == nil || p.Ref.Kind != ir.String || a.Ref.Kind != ir.Array || a.Ref.Elem.Kind != ir.String || a.Ref.ElemNullable {
			return fmt.Errorf("%s#%s: roots need a string member %q and a string list member %q", t.File, t.Pointer, r.Primary, r.Additional)
		}
	}
	for _, flt := range e.o.Semantics.Filters {
		req, item := e.m.TypeByDef(flt.Request), e.m.TypeByDef(flt.Item)
		if req == nil || item == nil {
			continue
		}
		for _, m := range flt.Members {
			a, b := req.Member(m.Name), item.Member(m.Name)
			if a == nil || b == nil {
				return fmt.Errorf("filter %s on %s: member %q is missing", flt.Request, flt.Item, m.Name)
			}
			ok := a.Ref.Kind == ir.String && b.Ref.Kind == ir.String
			if m.Match == "ordered" {
				ok = a.Ref.Kind == ir.Array && b.Ref.Kind == ir.Array && a.Ref.Elem.Kind == ir.String && b.Ref.Elem.Kind == ir.String && !a.Ref.ElemNullable && !b.Ref.ElemNullable
			}
			if !ok {
				return fmt.Errorf("filter %s on %s: member %q has a shape %q matching does not support", flt.Request, flt.Item, m.Name, m.Match)
			}
		}
	}
	return nil
}

func (e *emitter) overlayTable(f *jen.File) {
	f.Comment("OverlayInfo describes an RFD or vendor overlay applied to the schema this package was generated from.")
	f.Type().Id("OverlayInfo").Struct(
		jen.Comment("ID is the overlay's id, as in the provenance of doc comments."),
		jen.Id("ID").String(),
		jen.Id("Title").String(),
		jen.Id("URL").String(),
		jen.Comment("Status is the status of the overlay's source document."),
		jen.Id("Status").String(),
	)
	var rows []jen.Code
	for _, o := range e.o.Overlays {
		if strings.Contains(o.ID, "#") {
			continue // a provenance variant of an overlay listed already
		}
		rows = append(rows, jen.Values(jen.Dict{jen.Id("ID"): jen.Lit(o.ID), jen.Id("Title"): jen.Lit(o.Title), jen.Id("URL"): jen.Lit(o.URL), jen.Id("Status"): jen.Lit(o.Status)}))
	}
	f.Comment("Overlays lists the overlays applied to the base schema, in order; empty when there were none.")
	f.Var().Id("Overlays").Op("=").Index().Id("OverlayInfo").Values(rows...)
	f.Line()
}

// historyView emits ForHistory for a struct with turn-only members.
func (e *emitter) historyView(f *jen.File, t *ir.Type) {
	var drop []jen.Code
	var names []string
	for _, fl := range t.Fields {
		if fl.Ephemeral {
			drop = append(drop, jen.Id("h").Dot(fl.Name).Op("=").Add(zeroOf(fl)))
			names = append(names, fl.Name)
		}
	}
	if len(drop) == 0 {
		return
	}
	body := append([]jen.Code{jen.Id("h").Op(":=").Op("*").Id("v")}, drop...)
	body = append(body, jen.Return(jen.Id("h")))
	f.Comment(fmt.Sprintf("ForHistory returns v as it must be recorded in durable history and replayed: without %s, which applies to this turn only. The copy shares every other member with v.", strings.Join(names, " and ")))
	f.Func().Add(recv(t.Name)).Id("ForHistory").Params().Id(t.Name).Block(body...)
	f.Line()
}

// metaAccessors emits a typed getter and setter for one _meta namespace.
func (e *emitter) metaAccessors(f *jen.File, t *ir.Type, fl *ir.Field, ns ir.MetaNamespace) {
	typ := ns.Ref.Type.Name
	m := jen.Id("v").Dot(fl.Name)
	f.Comment(fmt.Sprintf("%s decodes the %q namespace of %s; ok is false when the key is absent or null. Other keys of %s stay free-form.", typ, ns.Key, fl.Name, fl.Name))
	f.Func().Add(recv(t.Name)).Id(typ).Params().Params(jen.Id("x").Id(typ), jen.Id("ok").Bool(), jen.Err().Error()).Block(
		jen.List(jen.Id("raw"), jen.Id("found")).Op(":=").Add(m.Clone()).Index(jen.Lit(ns.Key)),
		jen.If(jen.Op("!").Id("found").Op("||").Id("raw").Dot("Kind").Call().Op("==").Add(wireName("KindNull"))).Block(jen.Return(jen.Id("x"), jen.False(), jen.Nil())),
		jen.Err().Op("=").Add(wireName("DecodeWith")).Call(jen.Id("raw"), jen.Op("&").Id("x"), e.tableExpr(ns.Ref.Type), wireName("Lenient")),
		jen.Return(jen.Id("x"), jen.True(), jen.Err()),
	)
	f.Comment(fmt.Sprintf("Set%s stores x under the %q key of %s, keeping its other keys.", typ, ns.Key, fl.Name))
	f.Func().Add(recv(t.Name)).Id("Set"+typ).Params(jen.Id("x").Id(typ)).Block(
		jen.If(m.Clone().Op("==").Nil()).Block(m.Clone().Op("=").Map(jen.String()).Add(wireName("Raw")).Values()),
		m.Clone().Index(jen.Lit(ns.Key)).Op("=").Add(e.appendCall(ns.Ref, jen.Nil(), jen.Id("x"), false)),
	)
	f.Line()
}

func (e *emitter) rootsHelpers(f *jen.File, t *ir.Type, r facts.Roots) {
	p, a := t.Member(r.Primary), t.Member(r.Additional)
	primary := jen.Id("v").Dot(p.Name)
	if fieldPtr(p) {
		primary = jen.Id("v").Dot(p.Name + "OrEmpty").Call()
		f.Comment(fmt.Sprintf("%sOrEmpty returns %s, or \"\" when it is absent.", p.Name, p.Name))
		f.Func().Add(recv(t.Name)).Id(p.Name+"OrEmpty").Params().String().Block(
			jen.If(jen.Id("v").Dot(p.Name).Op("==").Nil()).Block(jen.Return(jen.Lit(""))),
			jen.Return(jen.Op("*").Id("v").Dot(p.Name)),
		)
	}
	list := jen.Id("v").Dot(a.Name)
	f.Comment(fmt.Sprintf("EffectiveRoots returns the ordered root list [%s, %s...]; an absent %s adds no roots.", p.Name, a.Name, a.Name))
	f.Func().Add(recv(t.Name)).Id("EffectiveRoots").Params().Index().String().Block(
		jen.Id("out").Op(":=").Make(jen.Index().String(), jen.Lit(0), jen.Lit(1).Op("+").Len(list.Clone())),
		jen.Id("out").Op("=").Append(jen.Id("out"), primary.Clone()),
		jen.Return(jen.Append(jen.Id("out"), list.Clone().Op("..."))),
	)
	f.Comment(fmt.Sprintf("Active%s returns the complete list of additional roots: %s as given, or an empty list (never nil) when it is absent. An absent list never means roots stored earlier.", a.Name, a.Name))
	f.Func().Add(recv(t.Name)).Id("Active"+a.Name).Params().Index().String().Block(
		jen.If(list.Clone().Op("==").Nil()).Block(jen.Return(jen.Index().String().Values())),
		jen.Return(list.Clone()),
	)
	f.Comment(fmt.Sprintf("Dedupe%s drops entries of %s equal to %s and repeated entries, keeping first-occurrence order, as clients should before sending.", a.Name, a.Name, p.Name))
	f.Func().Add(recv(t.Name)).Id("Dedupe" + a.Name).Params().Block(
		jen.If(list.Clone().Op("!=").Nil()).Block(list.Clone().Op("=").Id("DedupeRoots").Call(primary.Clone(), list.Clone())),
	)
	f.Line()
}

func (e *emitter) filterHelper(f *jen.File, req, item *ir.Type, flt facts.Filter) {
	var body []jen.Code
	var doc []string
	for _, m := range flt.Members {
		a, b := req.Member(m.Name), item.Member(m.Name)
		x, y := jen.Id("v").Dot(a.Name), jen.Id("item").Dot(b.Name)
		if m.Match == "ordered" {
			doc = append(doc, fmt.Sprintf("%s must be the same list in the same order (an item without it has none, so an empty filter matches only those)", a.Name))
			cond := jen.Op("!").Qual("slices", "Equal").Call(x.Clone(), y.Clone())
			if !a.Required {
				cond = x.Clone().Op("!=").Nil().Op("&&").Add(cond)
			}
			body = append(body, jen.If(cond).Block(jen.Return(jen.False())))
			continue
		}
		doc = append(doc, a.Name+" must be equal")
		xv, yv := x.Clone(), y.Clone()
		var guard []*jen.Statement
		if fieldPtr(a) {
			guard = append(guard, x.Clone().Op("!=").Nil())
			xv = jen.Op("*").Add(x.Clone())
		}
		if fieldPtr(b) {
			// A filter on a member the item lacks matches nothing.
			yv = jen.Op("*").Add(y.Clone())
			ne := y.Clone().Op("==").Nil().Op("||").Add(xv.Clone()).Op("!=").Add(yv)
			cond := ne
			if len(guard) > 0 {
				cond = guard[0].Op("&&").Parens(ne)
			}
			body = append(body, jen.If(cond).Block(jen.Return(jen.False())))
			continue
		}
		cond := xv.Op("!=").Add(yv)
		if len(guard) > 0 {
			cond = guard[0].Op("&&").Add(cond)
		}
		body = append(body, jen.If(cond).Block(jen.Return(jen.False())))
	}
	body = append(body, jen.Return(jen.True()))
	f.Comment(fmt.Sprintf("Matches reports whether item passes every filter v sets: %s. A filter v does not set matches every item.", strings.Join(doc, "; ")))
	f.Func().Add(recv(req.Name)).Id("Matches").Params(jen.Id("item").Op("*").Id(item.Name)).Bool().Block(body...)
	f.Line()
}
