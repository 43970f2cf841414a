package wire

import "testing"

func TestDuplicateItems(t *testing.T) {
	for _, c := range []struct {
		array string
		i, j  int
		dup   bool
	}{
		{`[]`, 0, 0, false},
		{`["a","b","a"]`, 0, 2, true},
		{`[1,2,1.0]`, 0, 2, true},                           // numbers by value
		{`[1e2,100]`, 0, 1, true},                           // exponents too
		{`[{"a":1,"b":[2]},{"b":[2.0],"a":1}]`, 0, 1, true}, // members in any order
		{`[{"a":1,"a":2},{"a":2}]`, 0, 1, true},             // the last duplicate member wins
		{`["\u0041","A"]`, 0, 1, true},                      // escapes undone
		{`[{"a":1},{"a":1,"b":null}]`, 0, 0, false},
		{`[[1,2],[2,1]]`, 0, 0, false}, // arrays keep their order
		{`[true,false,null,"true"]`, 0, 0, false},
		{`[1e400,1e400]`, 0, 1, true},
		{`not json`, 0, 0, false},
	} {
		i, j, dup := DuplicateItems([]byte(c.array))
		if dup != c.dup || (dup && (i != c.i || j != c.j)) {
			t.Errorf("DuplicateItems(%s) = %d, %d, %v; want %d, %d, %v", c.array, i, j, dup, c.i, c.j, c.dup)
		}
	}
}

func TestMultipleOf(t *testing.T) {
	for _, c := range []struct {
		ok   bool
		got  bool
		what string
	}{
		{true, FloatMultipleOf(0.3, "0.1"), "0.3 of 0.1 (exact in decimal, not in binary)"},
		{false, FloatMultipleOf(0.35, "0.1"), "0.35 of 0.1"},
		{true, FloatMultipleOf(0, "0.25"), "0 of 0.25"},
		{true, IntMultipleOf(-9, "3"), "-9 of 3"},
		{false, IntMultipleOf(10, "3"), "10 of 3"},
		{true, IntMultipleOf(3, "1.5"), "3 of 1.5"},
		{true, UintMultipleOf(18446744073709551614, "2"), "2^64-2 of 2"},
		{false, UintMultipleOf(18446744073709551615, "2"), "2^64-1 of 2"},
	} {
		if c.got != c.ok {
			t.Errorf("multipleOf %s: %v", c.what, c.got)
		}
	}
}

func TestFormats(t *testing.T) {
	for _, c := range []struct {
		f    func(string) bool
		s    string
		want bool
	}{
		{IsDateTime, "2026-11-23T03:54:42Z", true},
		{IsDateTime, "2026-11-23T03:54:42.123456+01:00", true},
		{IsDateTime, "2026-11-23", false},
		{IsDate, "2026-11-23", true},
		{IsDate, "2026-13-01", false},
		{IsUUID, "0F8FAD5B-D9CB-469F-A165-70867728950E", true},
		{IsUUID, "0f8fad5bd9cb469fa16570867728950e", false},
		{IsRegex, `^[a-z]+(\d{2})?$`, true},
		{IsRegex, `(?!x)`, false},
	} {
		if got := c.f(c.s); got != c.want {
			t.Errorf("format check of %q = %v, want %v", c.s, got, c.want)
		}
	}
	if !Satisfies(func(*Validator) {}) || Satisfies(func(v *Validator) { v.Add("x") }) {
		t.Error("Satisfies")
	}
	if f := (Fields{{Name: "a", Value: Raw("1")}}); !HasMember(f, "a") || HasMember(f, "b") {
		t.Error("HasMember")
	}
}
