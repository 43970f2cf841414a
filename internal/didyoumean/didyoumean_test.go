package didyoumean

import "testing"

func TestNearest(t *testing.T) {
	for _, c := range []struct {
		word       string
		candidates []string
		want       string
	}{
		{"genrate", []string{"init", "generate", "release"}, "generate"},
		{"stabel", []string{"stable", "unstable", "v2", "v2-unstable"}, "stable"},
		{"unstabel", []string{"stable", "unstable", "v2", "v2-unstable"}, "unstable"},
		{"2.40", []string{"2.2.0", "2.4.0", "0.10.0"}, "2.4.0"},
		{"v2.4.0", []string{"2.2.0", "2.4.0"}, "2.4.0"},
		{"Stable", []string{"stable"}, "stable"},
		{"nope", []string{"init", "generate", "conform"}, ""},
		{"chanels", []string{"stable", "unstable", "v2", "v2-unstable"}, ""},
		{"stable", []string{"stable", "unstable"}, ""},
		{"x", nil, ""},
	} {
		if got := Nearest(c.word, c.candidates); got != c.want {
			t.Errorf("Nearest(%q, %q) = %q, want %q", c.word, c.candidates, got, c.want)
		}
	}
}
