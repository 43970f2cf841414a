package ir

import "github.com/acpgen/acpgen/generator/load"

// ref converts a member or item schema into a value shape; the bool is
// whether null is also accepted.
func (b *builder) ref(owner *Type, s *load.Schema, member string) (*Ref, bool, error) {
	if s.IsBool {
		if !s.BoolValue {
			return nil, false, b.errf(s, "the false schema accepts nothing and has no Go type")
		}
		return &Ref{Kind: Raw}, true, nil
	}
	if ref := refOnly(s); ref != "" {
		nt, err := b.named(s, ref)
		if err != nil {
			return nil, false, err
		}
		return &Ref{Kind: Named, Type: nt}, false, nil
	}
	// anyOf: [X, {type: null}] is the second way the schema writes nullability.
	if len(s.AnyOf) == 2 && s.OneOf == nil && len(s.Types) == 0 && len(s.Properties) == 0 {
		for i, br := range s.AnyOf {
			if isNullOnly(br) {
				r, _, err := b.ref(owner, s.AnyOf[1-i], member)
				return r, true, err
			}
		}
	}
	if r, nullable, ok := b.routedRef(s); ok {
		return r, nullable, nil
	}
	if s.AnyOf != nil || s.OneOf != nil {
		r, err := b.inlineRef(owner, s, member, "union")
		return r, false, err
	}
	if s.AllOf != nil {
		return nil, false, b.errf(s, "allOf is understood only as a one-element $ref wrapper")
	}
	return b.typedRef(owner, s, member)
}

// inlineRef names an inline object or union (what) after its owner and
// member, and fills it.
func (b *builder) inlineRef(owner *Type, s *load.Schema, member, what string) (*Ref, error) {
	if owner == nil {
		return nil, b.errf(s, "an inline %s needs an owning type to be named after", what)
	}
	it, err := b.inline(owner, owner.Name+member, s)
	if err != nil {
		return nil, err
	}
	if err := b.fill(it, s); err != nil {
		return nil, err
	}
	return &Ref{Kind: Named, Type: it}, nil
}

// typedRef converts a schema that says its value's type (or says nothing,
// which is a raw value) with the constraints that type carries.
func (b *builder) typedRef(owner *Type, s *load.Schema, member string) (*Ref, bool, error) {
	types, nullable := nonNullTypes(s)
	if len(types) > 1 {
		return nil, false, b.errf(s, "a value of several types %v needs a union; write it with anyOf", types)
	}
	r := &Ref{Const: s.Const, MinLength: s.MinLength, MaxLength: s.MaxLength}
	if s.Enum != nil {
		t, n, err := b.inlineEnum(s, types)
		if err != nil {
			return nil, false, err
		}
		types, nullable = []string{t}, nullable || n
		r.Enum = enumValues(s.Enum)
	}
	numberConstraints(r, s)
	if s.HasPattern {
		r.Pattern, r.PatternName = s.Pattern, s.XPatternName
	}
	kind := ""
	if len(types) == 1 {
		kind = types[0]
	}
	if kind == "" && len(s.Properties) > 0 {
		kind = "object"
	}
	var err error
	switch kind {
	case "":
		if s.Items != nil || s.Format != "" || s.Const != nil {
			return nil, false, b.errf(s, "schema has no type")
		}
		r.Kind, nullable = Raw, true
	case "string", "boolean", "integer", "number":
		err = b.scalar(r, s, kind)
	case "array":
		err = b.array(r, owner, s, member)
	case "object":
		if len(s.Properties) > 0 || s.AnyOf != nil {
			r, err = b.inlineRef(owner, s, member, "object")
			break
		}
		r.Kind = Map
		r.Elem, r.ElemNullable, r.Rules, err = b.mapShape(owner, s, member)
	case "null":
		err = b.errf(s, "a member that can only be null has no Go type")
	}
	if err != nil {
		return nil, false, err
	}
	return r, nullable, nil
}

// scalar sets the kind and format of a string, boolean, integer or number,
// refusing a format the Go type cannot honour.
func (b *builder) scalar(r *Ref, s *load.Schema, kind string) error {
	switch kind {
	case "string":
		r.Kind = String
		switch s.Format {
		case "":
		case "uri":
			r.URI = true
		case "date-time", "date", "uuid", "regex":
			r.Format = s.Format
		default:
			return b.errf(s, "format %q does not apply to strings", s.Format)
		}
	case "boolean":
		r.Kind = Bool
	case "integer":
		r.Kind, r.Format = Int, s.Format
		switch s.Format {
		case "":
			r.Format = "int64"
		case "int32", "uint16", "uint32", "int64", "uint64":
		default:
			return b.errf(s, "integer format %q is not supported", s.Format)
		}
	case "number":
		r.Kind = Float
		if s.Format != "" && s.Format != "double" {
			return b.errf(s, "number format %q is not supported", s.Format)
		}
	}
	return nil
}

// array sets an array's element shape; an array without items holds raw
// values.
func (b *builder) array(r *Ref, owner *Type, s *load.Schema, member string) error {
	r.Kind = Array
	if s.Items == nil {
		r.Elem = &Ref{Kind: Raw}
		return nil
	}
	elem, en, err := b.ref(owner, s.Items, member+"Item")
	if err != nil {
		return err
	}
	r.Elem, r.ElemNullable, r.SkipInvalidItems = elem, en, s.XSkipInvalidItems
	return nil
}

// routed recognises the routing unions' params/result: anyOf (maybe nested,
// maybe with null) whose leaves all reference method-bound or free-form defs.
// Which one applies is decided by the method name, so the value stays raw here
// and the method table types it.
func (b *builder) routedRef(s *load.Schema) (*Ref, bool, bool) {
	routes, open, nullable, ok := b.routed(s)
	if !ok {
		return nil, false, false
	}
	return &Ref{Kind: Routed, Routes: routes, OpenRoute: open}, nullable, true
}

// routed walks a routing union; open reports an inline leaf that accepts
// any value (npm 0.4.5's extension methods, before ExtRequest was a def).
func (b *builder) routed(s *load.Schema) (routes []string, open, nullable, ok bool) {
	var walk func(s *load.Schema) bool
	walk = func(s *load.Schema) bool {
		if isNullOnly(s) {
			nullable = true
			return true
		}
		if s.AnyOf != nil && len(s.Properties) == 0 && len(s.Types) == 0 {
			for _, br := range s.AnyOf {
				if !walk(br) {
					return false
				}
			}
			return true
		}
		ref := refOnly(s)
		if ref == "" && isFree(s) {
			open = true
			return true
		}
		if ref == "" {
			return false
		}
		d, name, err := b.doc.Resolve(&load.Schema{Ref: ref, File: s.File, Pointer: s.Pointer})
		if err != nil {
			return false
		}
		if d.XMethod == "" && !isFree(d) {
			return false
		}
		routes = append(routes, name)
		return true
	}
	if s.AnyOf == nil || !walk(s) || len(routes)+boolInt(open) < 2 {
		return nil, false, false, false
	}
	return routes, open, nullable, true
}

// isFree reports a schema that accepts any value.
func isFree(s *load.Schema) bool {
	return !s.IsBool && len(s.Types) == 0 && len(s.Properties) == 0 && s.AnyOf == nil && s.OneOf == nil && s.AllOf == nil && s.Ref == "" && s.Const == nil && s.Enum == nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
