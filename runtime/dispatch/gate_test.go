package dispatch_test

import (
	"reflect"
	"testing"

	"github.com/acpgen/acpgen/runtime/dispatch"
	"github.com/acpgen/acpgen/runtime/wire"
)

// caps is a Negotiated reduced to a set of advertised capabilities.
type caps map[string]bool

func capability(path string) dispatch.Capability[*caps] {
	return dispatch.Capability[*caps]{Path: path, Allowed: func(n *caps) bool { return (*n)[path] }}
}

// testGates gates the method "m" on "a", its params' x "v" (a variant) on
// "b", and requires the result's s once "c" is advertised; the params of
// "tell" use "b" as m's do. walks counts the walks run.
func testGates(walks *int) *dispatch.GateTable[*caps] {
	variant := dispatch.Walk(func(p *msg, at []string) []string {
		*walks++
		if p.X == "v" {
			at = append(at, "/x")
		}
		return at
	})
	return dispatch.NewGates([]dispatch.Capability[*caps]{capability("a"), capability("b"), capability("c")}, []dispatch.Gate{
		{Method: "m", Capability: "a"},
		{Method: "m", Capability: "b", Variant: "v", Uses: variant},
		{Method: "tell", Capability: "b", Variant: "v", Uses: variant},
		{Method: "m", Capability: "c", Result: true, Required: true, Uses: dispatch.Walk(func(p *msg, at []string) []string {
			*walks++
			if p.S == "" {
				at = append(at, "/s")
			}
			return at
		})},
	})
}

func TestGateTable(t *testing.T) {
	var walks int
	g := testGates(&walks)
	none, all := &caps{}, &caps{"a": true, "b": true, "c": true}
	uses := &msg{X: "v"}
	cases := []struct {
		name   string
		got    []wire.GateViolation
		want   []wire.GateViolation
		walked int
	}{
		{"nothing advertised", g.CheckParams(none, "m", uses), []wire.GateViolation{
			{Method: "m", Capability: "a"},
			{Method: "m", Capability: "b", Pointer: "/x", Variant: "v"},
		}, 1},
		{"everything advertised: no walk", g.CheckParams(all, "m", uses), nil, 0},
		{"a message of another type uses nothing", g.CheckParams(&caps{"a": true}, "m", &struct{}{}), nil, 0},
		{"required once advertised", g.CheckResult(all, "m", &msg{}), []wire.GateViolation{
			{Method: "m", Capability: "c", Pointer: "/s", Required: true},
		}, 1},
		{"not required when not advertised: no walk", g.CheckResult(none, "m", &msg{}), nil, 0},
		{"an ungated method", g.CheckParams(none, "other", uses), nil, 0},
		{"a nil Negotiated grants nothing", g.CheckParams(nil, "m", &msg{}), []wire.GateViolation{{Method: "m", Capability: "a"}}, 1},
	}
	total := 0
	for _, c := range cases {
		total += c.walked
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %+v, want %+v", c.name, c.got, c.want)
		}
	}
	if walks != total {
		t.Errorf("the walks ran %d times, want %d (only when what they find is a violation)", walks, total)
	}
	if ok, need := g.AllowsMethod(none, "m"); ok || need != "a" {
		t.Errorf("AllowsMethod(none, m) = %v, %q; want false, a", ok, need)
	}
	if ok, _ := g.AllowsMethod(none, "other"); !ok {
		t.Error("an ungated method is not allowed")
	}
	if c, ok := g.MethodCapability("m"); !ok || c != "a" {
		t.Errorf("MethodCapability(m) = %q, %v", c, ok)
	}
	if !g.Allows(all, "b") || g.Allows(all, "unknown") || g.Allows(nil, "b") {
		t.Error("Allows: want b granted, an unknown path and a nil Negotiated not")
	}
}

func TestGateTableRejectsAnUnknownCapability(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a gate naming no listed capability was accepted")
		}
	}()
	dispatch.NewGates([]dispatch.Capability[*caps]{capability("a")}, []dispatch.Gate{{Method: "m", Capability: "z"}})
}
