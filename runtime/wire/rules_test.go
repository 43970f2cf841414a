package wire

import (
	"regexp"
	"strings"
	"testing"
)

// prefixPattern is the program internal/reprog compiles `^c` to.
func prefixPattern(c rune) *Pattern {
	return &Pattern{Source: "^" + string(c), Start: 1, Prog: []PatternInst{
		{Op: PatternFail},
		{Op: PatternEmpty, Arg: EmptyBeginText, Out: 2},
		{Op: PatternRune, Runes: []rune{c, c}, Out: 3},
		{Op: PatternMatch},
	}}
}

func TestStringRuleReasons(t *testing.T) {
	abs := prefixPattern('/')
	for _, c := range []struct {
		rule StringRule
		in   string
		want []string
	}{
		{StringRule{}, "", nil},
		{StringRule{MinLength: 1}, "", []string{"must be at least 1 character long"}},
		{StringRule{MinLength: 2}, "é", []string{"must be at least 2 characters long"}},
		{StringRule{MinLength: 2}, "éé", nil},
		{StringRule{MaxLength: 0, HasMaxLength: true}, "a", []string{"must be at most 0 characters long"}},
		{StringRule{MaxLength: 2, HasMaxLength: true}, "éé", nil},
		{StringRule{Pattern: abs, PatternWhat: "an absolute path"}, "rel", []string{"must be an absolute path"}},
		{StringRule{Format: &FormatURI}, "no-scheme", []string{"must be an absolute URI"}},
		{StringRule{Format: &FormatDateTime}, "2024-01-01T00:00:00Z", nil},
		{StringRule{Format: &FormatDate}, "yesterday", []string{"must be an RFC 3339 full-date"}},
		{StringRule{Format: &FormatUUID}, "x", []string{"must be a UUID"}},
		{StringRule{Format: &FormatRegex}, "(", []string{"must be a regular expression (RE2)"}},
		{StringRule{Subject: "name ", MinLength: 3, Pattern: abs, PatternWhat: "absolute"}, "a",
			[]string{"name must be absolute", "name must be at least 3 characters long"}}, // sorted by reason
	} {
		var v Validator
		c.rule.Check(&v, c.in)
		var got []string
		if err := v.Err(); err != nil {
			for _, e := range err.(*ValidationError).Violations {
				got = append(got, e.Reason)
			}
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%+v on %q: %q, want %q", c.rule, c.in, got, c.want)
		}
	}
}

// FuzzIsUUID holds IsUUID to the format's definition, written as a regular
// expression.
func FuzzIsUUID(f *testing.F) {
	re := regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	for _, s := range []string{"", "550e8400-e29b-41d4-a716-446655440000", "550E8400-E29B-41D4-A716-44665544000g",
		"550e8400e29b-41d4-a716-446655440000-", "550e8400-e29b-41d4-a716-446655440000\n", "550e8400-e29b-41d4-a716+446655440000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := IsUUID(s), re.MatchString(s); got != want {
			t.Errorf("IsUUID(%q) = %v, the definition says %v", s, got, want)
		}
	})
}
