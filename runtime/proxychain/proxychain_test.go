package proxychain

import "testing"

func TestBothDialectsRead(t *testing.T) {
	cases := []struct {
		name string
		m    Method
		d    Dialect
	}{
		{"proxy/initialize", Initialize, Schema},
		{"proxy/successor", Successor, Schema},
		{"_proxy/initialize", Initialize, Rust},
		{"_proxy/successor", Successor, Rust},
		{"initialize", None, Schema},
		{"_proxy/successor/request", None, Schema},
		{"proxy/other", None, Schema},
	}
	for _, c := range cases {
		m, d := Of(c.name)
		if m != c.m || (m != None && d != c.d) {
			t.Errorf("Of(%q) = %v, %v; want %v, %v", c.name, m, d, c.m, c.d)
		}
		if m != None && d.Name(m) != c.name {
			t.Errorf("%v.Name(%v) = %q, want %q", d, m, d.Name(m), c.name)
		}
	}
	if Canonical("_proxy/successor") != "proxy/successor" || Canonical("session/new") != "session/new" {
		t.Error("Canonical does not map the Rust names to the schema's and leave others alone")
	}
	for name, want := range map[string]bool{"proxy/x": true, "_proxy/initialize": true, "_proxy/x": false, "session/new": false} {
		if Reserved(name) != want {
			t.Errorf("Reserved(%q) = %v, want %v", name, !want, want)
		}
	}
	for _, s := range []string{"schema", "rust"} {
		if d, ok := ParseDialect(s); !ok || d.String() != s {
			t.Errorf("ParseDialect(%q) does not round-trip", s)
		}
	}
	if _, ok := ParseDialect("sacp"); ok {
		t.Error("ParseDialect accepts an unknown dialect")
	}
}
