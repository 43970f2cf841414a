package jsonpointer

import (
	"slices"
	"testing"
)

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

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"/a", []string{"a"}},
		{"/agentCapabilities/_meta/sandboxagent.dev/x", []string{"agentCapabilities", "_meta", "sandboxagent.dev", "x"}},
		{"/a~1b/m~0n/~01", []string{"a/b", "m~n", "~1"}},
		{"/", []string{""}},
	} {
		got, err := Parse(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("Parse(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"a/b", "/a~2b", "/a~", "/~x/y"} {
		if got, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) = %q, want an error", bad, got)
		}
	}
}

func TestSplitAndFormatPath(t *testing.T) {
	for _, c := range []struct {
		in, canon string
		want      []string
	}{
		{"agentCapabilities.loadSession", "agentCapabilities.loadSession", []string{"agentCapabilities", "loadSession"}},
		{"/agentCapabilities/loadSession", "agentCapabilities.loadSession", []string{"agentCapabilities", "loadSession"}},
		{"/agentCapabilities/_meta/sandboxagent.dev/extensions/sessionMetadata", "/agentCapabilities/_meta/sandboxagent.dev/extensions/sessionMetadata",
			[]string{"agentCapabilities", "_meta", "sandboxagent.dev", "extensions", "sessionMetadata"}},
		{"/a/b~1c", "/a/b~1c", []string{"a", "b/c"}},
	} {
		got, err := SplitPath(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("SplitPath(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
		if f := FormatPath(got); f != c.canon {
			t.Errorf("FormatPath(%q) = %q, want %q", got, f, c.canon)
		}
	}
	for _, bad := range []string{"a..b", "/a//b", "/a/~2", ".a", ""} {
		if got, err := SplitPath(bad); err == nil {
			t.Errorf("SplitPath(%q) = %q, want an error", bad, got)
		}
	}
}
