package dispatch_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/acpgen/acpgen/runtime/dispatch"
	"github.com/acpgen/acpgen/runtime/wire"
)

// adv is an initialize message reduced to its JSON: what it advertises.
type adv struct{ json string }

func (a *adv) MarshalJSON() ([]byte, error) { return []byte(a.json), nil }

// table gates the method "m" on "a", its params' x "v" (an enum value) on
// "b", and requires the result's l once "c" is advertised; the params of
// "tell" use "b" as m's do. The capabilities are in initialize's params.
var (
	table   = dispatch.GateTable{Capabilities: []dispatch.Capability{{Path: "a"}, {Path: "b"}, {Path: "c"}}}
	methods = dispatch.GatedMethods{Table: &table, Methods: []*dispatch.MethodGates{&mGates, &tellGates}}
)

var (
	mGates = dispatch.MethodGates{
		Method: "m",
		Params: dispatch.GateRows{Type: (*msg)(nil), Gates: []dispatch.Gate{
			{Capability: "a"},
			{Capability: "b", Use: "X", Variant: "v", Enum: true},
		}},
		Result: dispatch.GateRows{Type: (*msg)(nil), Gates: []dispatch.Gate{
			{Capability: "c", Use: "L", Required: true},
		}},
	}
	tellGates = dispatch.MethodGates{Method: "tell", Params: dispatch.GateRows{Type: (*msg)(nil), Gates: []dispatch.Gate{
		{Capability: "b", Use: "X", Variant: "v", Enum: true},
	}}}
)

// grants evaluates table over initialize params advertising json.
func grants(json string) dispatch.Grants {
	return dispatch.Grant(&table, &adv{json}, (*adv)(nil))
}

func TestGateTable(t *testing.T) {
	none, all := grants(`{}`), grants(`{"a":true,"b":true,"c":true}`)
	uses := &msg{X: "v"}
	cases := []struct {
		name string
		got  []wire.GateViolation
		want []wire.GateViolation
	}{
		{"nothing advertised", methods.CheckParams(none, "m", uses), []wire.GateViolation{
			{Method: "m", Capability: "a"},
			{Method: "m", Capability: "b", Pointer: "/x", Variant: "v"},
		}},
		{"another enum value is no use", methods.CheckParams(grants(`{"a":true}`), "m", &msg{X: "w"}), nil},
		{"everything advertised", methods.CheckParams(all, "m", uses), nil},
		{"a message of another type uses nothing", methods.CheckParams(grants(`{"a":true}`), "m", &struct{ X string }{"v"}), nil},
		{"a nil message uses nothing", methods.CheckParams(grants(`{"a":true}`), "m", (*msg)(nil)), nil},
		{"required once advertised", methods.CheckResult(all, "m", &msg{}), []wire.GateViolation{
			{Method: "m", Capability: "c", Pointer: "/l", Required: true},
		}},
		{"present when required", methods.CheckResult(all, "m", &msg{L: []string{}}), nil},
		{"not required when not advertised", methods.CheckResult(none, "m", &msg{}), nil},
		{"an ungated method", methods.CheckParams(none, "other", uses), nil},
		{"the zero Grants grants nothing", methods.CheckParams(dispatch.Grants{}, "m", &msg{}), []wire.GateViolation{{Method: "m", Capability: "a"}}},
	}
	for _, c := range cases {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %+v, want %+v", c.name, c.got, c.want)
		}
	}
	if ok, need := methods.AllowsMethod(none, "m"); ok || need != "a" {
		t.Errorf("AllowsMethod(none, m) = %v, %q; want false, a", ok, need)
	}
	if ok, _ := methods.AllowsMethod(none, "other"); !ok {
		t.Error("an ungated method is not allowed")
	}
	if c, ok := methods.MethodCapability("m"); !ok || c != "a" {
		t.Errorf("MethodCapability(m) = %q, %v", c, ok)
	}
	if _, ok := methods.MethodCapability("tell"); ok {
		t.Error("tell has a method capability")
	}
	if !table.Allows(all, "b") || table.Allows(all, "unknown") || table.Allows(dispatch.Grants{}, "b") {
		t.Error("Allows: want b granted, an unknown path and the zero Grants not")
	}
}

func TestGateTableRejectsAnUnknownCapability(t *testing.T) {
	bad := dispatch.MethodGates{Method: "m", Params: dispatch.GateRows{Gates: []dispatch.Gate{{Capability: "z"}}}}
	tb := dispatch.GatedMethods{Table: &dispatch.GateTable{Capabilities: []dispatch.Capability{{Path: "a"}}}, Methods: []*dispatch.MethodGates{&bad}}
	defer func() {
		if recover() == nil {
			t.Error("a gate naming no listed capability was accepted")
		}
	}()
	tb.AllowsMethod(dispatch.Grants{}, "m")
}

func TestGateTableRejectsAnUnknownField(t *testing.T) {
	bad := dispatch.MethodGates{Method: "m", Params: dispatch.GateRows{Type: (*msg)(nil), Gates: []dispatch.Gate{{Capability: "a", Use: "Nope"}}}}
	tb := dispatch.GatedMethods{Table: &dispatch.GateTable{Capabilities: []dispatch.Capability{{Path: "a"}}}, Methods: []*dispatch.MethodGates{&bad}}
	defer func() {
		if recover() == nil {
			t.Error("a pattern naming no field of the message was accepted")
		}
	}()
	tb.CheckParams(dispatch.Grants{}, "m", &msg{})
}

// ns is a typed _meta namespace: it does not decode when it has "bad".
type ns struct{}

func (*ns) DecodeJSON(d *wire.Decoder) error {
	if err := d.BeginObject(); err != nil {
		return err
	}
	for {
		key, ok, err := d.NextKey()
		if err != nil || !ok {
			return err
		}
		if string(key) == "bad" {
			return d.Errorf("bad")
		}
		if err := d.Skip(); err != nil {
			return err
		}
	}
}

// TestGrantReadsTheJSON: a capability is granted by true, a present object
// or a list holding an item, found by its dotted or pointer path in the
// message that holds it; a typed _meta namespace that does not decode
// grants nothing.
func TestGrantReadsTheJSON(t *testing.T) {
	caps := []dispatch.Capability{
		{Path: "t.on"}, {Path: "t.off"}, {Path: "t.obj"}, {Path: "t.null"}, {Path: "t.empty"},
		{Path: "t.list"}, {Path: "t.str"}, {Path: "t.absent"}, {Path: "nothing.here"},
		{Path: "/t/d.e/f"}, {Path: "t.res", InResult: true}, {Path: "r.on", InResult: true},
		{Path: "/t/_meta/good.ns/on", NamespaceAt: 3, Namespace: dispatch.Decodes[ns]},
		{Path: "/t/_meta/bad.ns/on", NamespaceAt: 3, Namespace: dispatch.Decodes[ns]},
	}
	want := map[string]bool{"t.on": true, "t.obj": true, "t.list": true, "/t/d.e/f": true, "r.on": true, "/t/_meta/good.ns/on": true}
	tb := dispatch.GateTable{Capabilities: caps}
	g := dispatch.Grant(&tb,
		&adv{`{"t":{"on":true,"off":false,"obj":{},"null":null,"empty":[],"list":[{}],"str":"true","d.e":{"f":true},
			"_meta":{"good.ns":{"on":true},"bad.ns":{"on":true,"bad":1}}}}`},
		&adv{`{"r":{"on":true}}`})
	for _, c := range caps {
		if got := tb.Allows(g, c.Path); got != want[c.Path] {
			t.Errorf("Allows(%s) = %v, want %v", c.Path, got, want[c.Path])
		}
	}
	if g := dispatch.Grant(&tb, (*adv)(nil), (*adv)(nil)); tb.Allows(g, "t.on") || !g.Evaluated() {
		t.Error("nil initialize messages: want evaluated, granting nothing")
	}
	if (dispatch.Grants{}).Evaluated() {
		t.Error("the zero Grants is evaluated")
	}
}

// tree is a message shaped to exercise every move of a pattern.
type tree struct {
	Items []item           `json:"items"`
	Opt   []string         `json:"opt,omitempty"`
	ByKey map[string]*item `json:"byKey,omitempty"`
	Ptr   *item            `json:"p/tr,omitempty"`
	U     union            `json:"-"`
	Ptrs  []*item          `json:"ptrs,omitempty"`
}

type item struct {
	Kind string   `json:"kind"`
	V    union    `json:"-"`
	Need *string  `json:"need,omitempty"`
	Sub  *payload `json:"sub,omitempty"`
}

type union struct {
	A *payload `json:"-"`
	B *payload `json:"-"`
}

type payload struct {
	Deep []string `json:"deep"`
}

func TestGatePatterns(t *testing.T) {
	s := "s"
	v := &tree{
		Items: []item{{V: union{A: &payload{}}}, {Kind: "x"}, {V: union{A: &payload{}}}},
		ByKey: map[string]*item{"b": {Kind: "x"}, "a~/": {Kind: "x"}, "c": nil, "d": {Kind: "y"}},
		Ptr:   &item{},
		U:     union{B: &payload{}},
		Ptrs:  []*item{nil, {V: union{A: &payload{}}}, {}, nil, {V: union{A: &payload{}}}},
	}
	cases := []struct {
		gate dispatch.Gate
		v    *tree
		want []string
	}{
		{dispatch.Gate{Use: "Items.*.V.A"}, v, []string{"/items/0", "/items/2"}},
		{dispatch.Gate{Use: "Items.*.Kind", Variant: "x", Enum: true}, v, []string{"/items/1/kind"}},
		{dispatch.Gate{Use: "ByKey.*.Kind", Variant: "x", Enum: true}, v, []string{"/byKey/a~0~1/kind", "/byKey/b/kind"}},
		{dispatch.Gate{Use: "U.A|B.Deep"}, v, []string{"/deep"}}, // a required member is present, even nil
		{dispatch.Gate{Use: "U.A|B.Deep"}, &tree{}, nil},
		{dispatch.Gate{Use: "Opt"}, v, nil},
		{dispatch.Gate{Use: "Opt"}, &tree{Opt: []string{}}, []string{"/opt"}},
		{dispatch.Gate{Use: "Ptr.Need", Required: true}, v, []string{"/p~1tr/need"}},
		{dispatch.Gate{Use: "Ptr.Need", Required: true}, &tree{Ptr: &item{Need: &s}}, nil},
		{dispatch.Gate{Use: "Ptr.Need", Required: true}, &tree{}, nil},
		{dispatch.Gate{Use: "Items", Required: true}, &tree{}, nil},           // a required member is never absent
		{dispatch.Gate{Use: "Ptrs.*.V.A"}, v, []string{"/ptrs/1", "/ptrs/4"}}, // nil items are skipped
		{dispatch.Gate{Use: "Ptr"}, v, []string{"/p~1tr"}},                    // a pointer member's presence
		{dispatch.Gate{Use: "Ptr"}, &tree{}, nil},
		{dispatch.Gate{Use: "U.B"}, v, []string{""}}, // a variant of a union inline in its object: the object's pointer
		{dispatch.Gate{Use: "U.A"}, v, nil},
		// items whose only gated place is a pointer member: tested in the items' loop
		{dispatch.Gate{Use: "Items.*.Sub"}, &tree{Items: []item{{}, {Sub: &payload{}}, {Sub: &payload{}}}}, []string{"/items/1/sub", "/items/2/sub"}},
		{dispatch.Gate{Use: "Ptrs.*.Sub"}, &tree{Ptrs: []*item{nil, {Sub: &payload{}}, {}}}, []string{"/ptrs/1/sub"}},
		{dispatch.Gate{Use: "Ptrs.*.Sub"}, &tree{Ptrs: []*item{{}, nil}}, nil},
	}
	for _, c := range cases {
		c.gate.Capability = "a"
		granted := `{}`
		if c.gate.Required {
			granted = `{"a":true}`
		}
		mg := dispatch.MethodGates{Method: "m", Params: dispatch.GateRows{Type: (*tree)(nil), Gates: []dispatch.Gate{c.gate}}}
		tb := dispatch.GatedMethods{Table: &dispatch.GateTable{Capabilities: []dispatch.Capability{{Path: "a"}}}, Methods: []*dispatch.MethodGates{&mg}}
		var got []string
		for _, x := range tb.CheckParams(dispatch.Grant(tb.Table, &adv{granted}, (*adv)(nil)), "m", c.v) {
			got = append(got, x.Pointer)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%+v: got %q, want %q", c.gate, got, c.want)
		}
	}
}

// TestGateCheckDoesNotAllocate: a walk that finds no use allocates nothing,
// so the per-message check costs no garbage.
func TestGateCheckDoesNotAllocate(t *testing.T) {
	mg := dispatch.MethodGates{Method: "m", Params: dispatch.GateRows{Type: (*tree)(nil), Gates: []dispatch.Gate{
		{Capability: "a", Use: "Items.*.V.A"},
		{Capability: "a", Use: "ByKey.*.Kind", Variant: "x", Enum: true},
	}}}
	tb := dispatch.GatedMethods{Table: &dispatch.GateTable{Capabilities: []dispatch.Capability{{Path: "a"}}}, Methods: []*dispatch.MethodGates{&mg}}
	g := dispatch.Grant(tb.Table, &adv{`{}`}, (*adv)(nil))
	v := &tree{Items: []item{{}, {V: union{B: &payload{}}}, {}}}
	if n := testing.AllocsPerRun(100, func() {
		if vs := tb.CheckParams(g, "m", v); vs != nil {
			t.Fatal(vs)
		}
	}); n != 0 {
		t.Errorf("a check that finds nothing allocates %v times", n)
	}
}

// TestGateViolationsInRowOrder: one walk serves every row of a message, and
// the violations still come row by row, each row's in message order.
func TestGateViolationsInRowOrder(t *testing.T) {
	mg := dispatch.MethodGates{Method: "m", Params: dispatch.GateRows{Type: (*tree)(nil), Gates: []dispatch.Gate{
		{Capability: "a", Use: "Items.*.V.A", Variant: "A"},
		{Capability: "a"},
		{Capability: "a", Use: "Items.*.V.B", Variant: "B"},
	}}}
	tb := dispatch.GatedMethods{Table: &dispatch.GateTable{Capabilities: []dispatch.Capability{{Path: "a"}}}, Methods: []*dispatch.MethodGates{&mg}}
	v := &tree{Items: []item{{V: union{B: &payload{}}}, {V: union{A: &payload{}}}, {V: union{B: &payload{}}}}}
	var got []string
	for _, x := range tb.CheckParams(dispatch.Grants{}, "m", v) {
		got = append(got, x.Variant+x.Pointer)
	}
	if want := []string{"A/items/1", "", "B/items/0", "B/items/2"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func (n *ns) UnmarshalJSON(data []byte) error { return wire.Decode(data, n, wire.Lenient) }

// TestGatesOverManyCapabilities: a table of more than 64 capabilities
// grants and checks rows as one of at most 64 does.
func TestGatesOverManyCapabilities(t *testing.T) {
	caps := make([]dispatch.Capability, 70)
	for i := range caps {
		caps[i].Path = fmt.Sprintf("c%d", i)
	}
	mg := dispatch.MethodGates{Method: "m", Params: dispatch.GateRows{Type: (*tree)(nil), Gates: []dispatch.Gate{
		{Capability: "c69", Use: "Items.*.V.A", Variant: "A"},
		{Capability: "c3"},
		{Capability: "c66"},
	}}}
	tb := dispatch.GatedMethods{Table: &dispatch.GateTable{Capabilities: caps}, Methods: []*dispatch.MethodGates{&mg}}
	v := &tree{Items: []item{{V: union{A: &payload{}}}}}
	for json, want := range map[string][]string{
		`{}`:                             {"c69/items/0", "c3", "c66"},
		`{"c69":true,"c66":true}`:        {"c3"},
		`{"c3":true,"c64":true}`:         {"c69/items/0", "c66"},
		`{"c69":true,"c3":{},"c66":[1]}`: nil,
	} {
		var got []string
		for _, x := range tb.CheckParams(dispatch.Grant(tb.Table, &adv{json}, (*adv)(nil)), "m", v) {
			got = append(got, x.Capability+x.Pointer)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("advertising %s: got %q, want %q", json, got, want)
		}
	}
}

// TestGatedMethodsByName: every method of a large table is found by its
// name, and names it lacks (the empty one, a prefix, one differing in one
// byte) find nothing.
func TestGatedMethodsByName(t *testing.T) {
	table := dispatch.GateTable{Capabilities: []dispatch.Capability{{Path: "a"}}}
	var ms []*dispatch.MethodGates
	for i := range 40 {
		ms = append(ms, &dispatch.MethodGates{Method: fmt.Sprintf("session/m%02d", i), Params: dispatch.GateRows{Gates: []dispatch.Gate{{Capability: "a"}}}})
	}
	for _, m := range []string{"a/same", "b/same", "c/same", "ab"} { // names the hash cannot tell apart
		ms = append(ms, &dispatch.MethodGates{Method: m, Params: dispatch.GateRows{Gates: []dispatch.Gate{{Capability: "a"}}}})
	}
	tb := dispatch.GatedMethods{Table: &table, Methods: ms}
	none := dispatch.Grant(&table, &adv{`{}`}, (*adv)(nil))
	for _, m := range ms {
		if ok, c := tb.AllowsMethod(none, m.Method); ok || c != "a" {
			t.Errorf("%s: allowed %v, capability %q; want gated on a", m.Method, ok, c)
		}
	}
	for _, name := range []string{"", "session/m", "session/m40", "session/n00", "Session/m00", "d/same", "a", "ba"} {
		if ok, _ := tb.AllowsMethod(none, name); !ok {
			t.Errorf("%q is gated, but no row names it", name)
		}
	}
}
