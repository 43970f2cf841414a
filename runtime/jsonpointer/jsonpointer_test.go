package jsonpointer

import "testing"

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"},
		{"", ""},
		{"a/b", "a~1b"},
		{"m~n", "m~0n"},
		{"~/", "~0~1"},
		{"/~1", "~1~01"},
	} {
		if got := Escape(c.in); got != c.want {
			t.Errorf("Escape(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := Unescape(c.want); got != c.in {
			t.Errorf("Unescape(%q) = %q, want %q", c.want, got, c.in)
		}
	}
}

// RFC 6901 section 4: "~01" is the token "~1", never "/".
func TestUnescapeOrder(t *testing.T) {
	if got := Unescape("~01"); got != "~1" {
		t.Errorf(`Unescape("~01") = %q, want "~1"`, got)
	}
}

func TestEscapePlainDoesNotAllocate(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { _ = Escape("sessionId") }); n != 0 {
		t.Errorf("Escape of a plain token allocates %v times", n)
	}
}
