package wire

import "strconv"

// This file holds the schema's constraints as values the generated code
// declares once per distinct set of keywords and checks through one method,
// instead of one inline test per keyword.

// Format is a string format JSON Schema names and the validator checks:
// its check and what a passing value is. Each is a variable of its own, so
// a binary links the checks (net/url, time parsing, regexp) of the formats
// its generated rules name and no others.
type Format struct {
	Check func(string) bool
	What  string
}

// The formats checked (others are annotations only).
var (
	FormatURI      = Format{IsURI, "an absolute URI"}
	FormatDateTime = Format{IsDateTime, "an RFC 3339 date-time"}
	FormatDate     = Format{IsDate, "an RFC 3339 full-date"}
	FormatUUID     = Format{IsUUID, "a UUID"}
	FormatRegex    = Format{IsRegex, "a regular expression (RE2)"}
)

// StringRule is the constraints of one string value: minLength, maxLength
// (in characters), pattern, a format. The zero value accepts every string.
type StringRule struct {
	// Subject prefixes every reason ("name " for a member name checked
	// against propertyNames).
	Subject      string
	MinLength    int // 0: no lower bound
	MaxLength    int // checked when HasMaxLength
	HasMaxLength bool
	Pattern      *Pattern
	// PatternWhat is what a matching string is, for the reason ("a string
	// matching ..." or the pattern's name).
	PatternWhat string
	Format      *Format
}

// Check adds to v every constraint s breaks, at v's current position.
func (r *StringRule) Check(v *Validator, s string) {
	if r.MinLength > 0 && RuneCount(s) < r.MinLength {
		v.Add(r.Subject + "must be at least " + characters(r.MinLength) + " long")
	}
	if r.HasMaxLength && RuneCount(s) > r.MaxLength {
		v.Add(r.Subject + "must be at most " + strconv.Itoa(r.MaxLength) + " characters long")
	}
	if r.Pattern != nil && !r.Pattern.MatchString(s) {
		v.Add(r.Subject + "must be " + r.PatternWhat)
	}
	if r.Format != nil && !r.Format.Check(s) {
		v.Add(r.Subject + "must be " + r.Format.What)
	}
}

func characters(n int) string {
	if n == 1 {
		return "1 character"
	}
	return strconv.Itoa(n) + " characters"
}

// IntRule is an integer's bounds, each inclusive (the generator turns an
// exclusive bound into the inclusive one next to it), with the reason a
// value out of each bound gets. The zero value accepts every integer.
type IntRule struct {
	HasMin  bool
	Min     int64
	MinWhat string
	HasMax  bool
	Max     int64
	MaxWhat string
}

// Check adds to v each bound x breaks, at v's current position.
func (r *IntRule) Check(v *Validator, x int64) {
	if r.HasMin && x < r.Min {
		v.Add(r.MinWhat)
	}
	if r.HasMax && x > r.Max {
		v.Add(r.MaxWhat)
	}
}

// FloatBound is one bound of a number: x breaks it when x is below Limit
// (Lower) or above it, or equal to it when Exclusive; What is the violation.
type FloatBound struct {
	Limit            float64
	Lower, Exclusive bool
	What             string
}

// CheckFloat adds to v each bound x breaks, at v's current position.
func CheckFloat(v *Validator, x float64, bounds []FloatBound) {
	for _, b := range bounds {
		below, above := x < b.Limit, x > b.Limit
		if b.Exclusive {
			below, above = x <= b.Limit, x >= b.Limit
		}
		if b.Lower && below || !b.Lower && above {
			v.Add(b.What)
		}
	}
}
