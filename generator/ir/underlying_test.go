package ir

import "testing"

// TestUnderlying: aliases of named types are followed to the end of the
// chain; an alias of anything else, and every other kind, is its own end; a
// cycle ends at an alias inside it.
func TestUnderlying(t *testing.T) {
	obj := &Type{Name: "Obj", Kind: Struct}
	str := &Type{Name: "Str", Kind: Alias, Target: &Ref{Kind: String}}
	alias := func(name string, to *Type) *Type {
		return &Type{Name: name, Kind: Alias, Target: &Ref{Kind: Named, Type: to}}
	}
	c := alias("C", obj)
	b := alias("B", c)
	a := alias("A", b)
	s := alias("S", str)
	for _, tc := range []struct{ from, want *Type }{
		{obj, obj}, {str, str}, {c, obj}, {b, obj}, {a, obj}, {s, str},
	} {
		if got := tc.from.Underlying(); got != tc.want {
			t.Errorf("%s.Underlying() = %s, want %s", tc.from.Name, got.Name, tc.want.Name)
		}
	}

	x, y, z := alias("X", nil), alias("Y", nil), alias("Z", nil)
	x.Target.Type, y.Target.Type, z.Target.Type = y, z, y // X -> Y -> Z -> Y
	self := alias("Self", nil)
	self.Target.Type = self
	for _, from := range []*Type{x, y, z, self} {
		if got := from.Underlying(); !got.namesType() || (got != y && got != z && got != self) {
			t.Errorf("%s.Underlying() = %s, want an alias inside the cycle", from.Name, got.Name)
		}
	}
}

// TestNamedType: a Named ref resolves through aliases; any other ref, or
// none, has no named type.
func TestNamedType(t *testing.T) {
	obj := &Type{Name: "Obj", Kind: Struct}
	a := &Type{Name: "A", Kind: Alias, Target: &Ref{Kind: Named, Type: obj}}
	var none *Ref
	if got := (&Ref{Kind: Named, Type: a}).NamedType(); got != obj {
		t.Errorf("NamedType of A = %v, want Obj", got)
	}
	if got := none.NamedType(); got != nil {
		t.Errorf("NamedType of nil = %v", got)
	}
	if got := (&Ref{Kind: Array, Elem: &Ref{Kind: Named, Type: a}}).NamedType(); got != nil {
		t.Errorf("NamedType of an array = %v", got)
	}
}
