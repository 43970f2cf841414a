package wire

import (
	"reflect"
	"testing"
)

type atMsg struct {
	Name  string
	P     *atMsg
	S     []atMsg
	PS    []*atMsg
	M     map[string]*atMsg
	Inner struct{ Kind string }
}

// TestAtReadsWhatReflectionReads: every step reads the same field, item or
// string as reflection does, and reports absence as the gates define it.
func TestAtReadsWhatReflectionReads(t *testing.T) {
	typ := reflect.TypeOf((*atMsg)(nil))
	v := &atMsg{Name: "root", P: &atMsg{Name: "p"}, S: []atMsg{{Name: "s0"}, {Name: "s1"}},
		PS: []*atMsg{nil, {Name: "ps1"}}, M: map[string]*atMsg{"b": {Name: "mb"}, "a": {Name: "ma"}, "c": nil}}
	v.Inner.Kind = "k"
	r := RootOf((*atMsg)(nil))
	if _, ok := r.At((*atMsg)(nil)); ok {
		t.Error("a nil pointer is reachable")
	}
	if _, ok := r.At(&struct{}{}); ok {
		t.Error("a pointer of another type is reachable")
	}
	if _, ok := r.At(*v); ok {
		t.Error("a value, not a pointer, is reachable")
	}
	root, ok := r.At(v)
	if !ok {
		t.Fatal("the message is not reachable")
	}
	field := func(name string, optional bool) FieldStep {
		f, _ := typ.Elem().FieldByName(name)
		return StepTo(f, optional)
	}
	str := func(a At) string { return a.String() }
	at := func(m *atMsg) At { a, _ := r.At(m); return a }
	if n, _ := field("Name", false).Field(root); str(n) != "root" {
		t.Errorf("Name: %q", str(n))
	}
	if p, ok := field("P", false).Field(root); !ok || !field("P", false).Present(root) || str(p) != "p" {
		t.Error("P: not read")
	}
	if _, ok := field("P", false).Field(at(v.P)); ok || field("P", false).Present(at(v.P)) {
		t.Error("a nil pointer field is present")
	}
	if in, _ := field("Inner", false).Field(root); str(in) != "k" {
		t.Errorf("Inner.Kind: %q", str(in))
	}
	empty := at(&atMsg{S: []atMsg{}})
	if _, ok := field("S", true).Field(at(v.P)); ok {
		t.Error("a nil optional slice is present")
	}
	if _, ok := field("S", true).Field(empty); !ok {
		t.Error("an empty optional slice is absent")
	}
	if _, ok := field("S", false).Field(at(v.P)); !ok {
		t.Error("a nil required slice is absent")
	}
	if _, ok := field("M", true).Field(at(v.P)); ok {
		t.Error("a nil optional map is present")
	}
	collect := func(name string) []string {
		f, _ := typ.Elem().FieldByName(name)
		s, err := StepItems(f.Type)
		if err != nil {
			t.Fatal(err)
		}
		at, _ := StepTo(f, false).Field(root)
		var got []string
		s.Each(at, func(i int, key string, item At) { got = append(got, key+str(item)) })
		return got
	}
	for name, want := range map[string][]string{"S": {"s0", "s1"}, "PS": {"ps1"}, "M": {"ama", "bmb"}} {
		if got := collect(name); !reflect.DeepEqual(got, want) {
			t.Errorf("items of %s: %q, want %q", name, got, want)
		}
	}
	if _, err := StepItems(reflect.TypeOf(map[int]string{})); err == nil {
		t.Error("a map of int keys has items")
	}
}
