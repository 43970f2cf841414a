package reprog_test

import (
	"regexp"
	"testing"

	"github.com/acpgen/acpgen/internal/reprog"
)

// absolutePath is the cwd pattern of ACP's session/new (an overlay's rule).
const absolutePath = `^(/|[A-Za-z]:[\\/]|\\\\[^\\/]+[\\/][^\\/]+)`

var patterns = []string{
	absolutePath,
	`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`,
	`^t`, `x*`, `a|b|`, `(?i)straße`, `(?i)k`, `\bword\b`, `\Bx\B`, `(?m)^a$`,
	`(?s).b`, `.b`, `[^a-c]+z`, `^$`, `\A\z`, `[\p{Greek}]+`, `a{2,3}?c`,
	`(a|ab)(c|bcd)(d*)`, `^[a-z][a-z0-9_]*$`, `\d+\.\d*`,
}

var inputs = []string{
	"", "/", "/tmp", "C:\\x", "c:/x", "\\\\host\\share", "\\\\host", "rel/path",
	"x\n/abs", "t", "st", "STRASSE", "straße", "STRAẞE", "K", "\u212a", "a word here",
	"swords", "axb", "b\na", "a\nb", "\nb", "αβγ", "aac", "aaac", "abcd", "abd",
	"12.5", "x.5", "\xff/", "/\xff", "\xffb", "550e8400-e29b-41d4-a716-446655440000",
	"550e8400-e29b-41d4-a716-44665544000G",
}

// check fails t where the compiled program and Go's regexp disagree on s.
func check(t *testing.T, pattern, s string) {
	t.Helper()
	want := regexp.MustCompile(pattern).MatchString(s)
	p, err := reprog.Compile(pattern)
	if err != nil {
		t.Fatalf("%q: %v", pattern, err)
	}
	if got := p.MatchString(s); got != want {
		t.Errorf("pattern %q on %q: program says %v, regexp %v", pattern, s, got, want)
	}
}

func TestMatchesLikeRegexp(t *testing.T) {
	for _, p := range patterns {
		for _, s := range inputs {
			check(t, p, s)
		}
	}
}

func TestCompileRefusesWhatRegexpRefuses(t *testing.T) {
	for _, p := range []string{`(`, `a**`, `\8`, `x{1001}`} {
		if _, err := reprog.Compile(p); err == nil {
			t.Errorf("%q compiled; regexp refuses it", p)
		}
	}
}

// FuzzMatch compares the program with Go's regexp on fuzzed patterns and
// inputs: every pattern regexp accepts must match exactly the same strings.
func FuzzMatch(f *testing.F) {
	for _, p := range patterns {
		for _, s := range inputs {
			f.Add(p, s)
		}
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		if len(pattern) > 64 || len(s) > 256 {
			return
		}
		p, err := reprog.Compile(pattern)
		if _, rerr := regexp.Compile(pattern); rerr != nil {
			if err == nil {
				t.Errorf("%q compiled; regexp refuses it", pattern)
			}
			return
		}
		if err == nil && len(p.Prog) > 2000 {
			return // nested repetition: slow to run both ways
		}
		check(t, pattern, s)
	})
}
