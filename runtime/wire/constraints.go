package wire

import (
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// This file holds the checks of JSON Schema keywords that are the same for
// every generated type (uniqueItems, multipleOf, trying a value against a
// shape), so that generated validators only call them.

// Satisfies runs check on a fresh Validator and reports whether it found
// nothing: a union tries a candidate variant with it.
func Satisfies(check func(*Validator)) bool {
	var v Validator
	check(&v)
	return len(v.errs) == 0
}

// HasMember reports whether f holds a member called name (dependentRequired
// on a member the type does not declare).
func HasMember(f Fields, name string) bool {
	_, ok := f.Get(name)
	return ok
}

// DuplicateItems reports the first two equal items of a JSON array, equal as
// JSON Schema's uniqueItems means it: objects regardless of member order,
// numbers by value (1 and 1.0 are equal). The array is what a generated
// encoder wrote, so it is well-formed; ok is false for anything else.
func DuplicateItems(array []byte) (i, j int, ok bool) {
	d := NewDecoder(array, Strict)
	if d.BeginArray() != nil {
		return 0, 0, false
	}
	seen := map[string]int{}
	for n := 0; ; n++ {
		more, err := d.NextItem()
		if err != nil || !more {
			return 0, 0, false
		}
		key, err := canonical(d, nil)
		if err != nil {
			return 0, 0, false
		}
		if first, dup := seen[string(key)]; dup {
			return first, n, true
		}
		seen[string(key)] = n
	}
}

// canonical appends a form of the next value in which equal JSON values are
// equal bytes: members sorted by name (the last of duplicates wins, as in
// decoding), numbers written as exact fractions.
func canonical(d *Decoder, b []byte) ([]byte, error) {
	switch d.Peek() {
	case KindObject:
		return canonicalObject(d, b)
	case KindArray:
		if err := d.BeginArray(); err != nil {
			return nil, err
		}
		b = append(b, '[')
		for {
			more, err := d.NextItem()
			if err != nil {
				return nil, err
			}
			if !more {
				return append(b, ']'), nil
			}
			if b, err = canonical(d, b); err != nil {
				return nil, err
			}
			b = append(b, ',')
		}
	case KindNumber:
		num, err := d.ReadNumberRaw()
		if err != nil {
			return nil, err
		}
		return append(b, canonicalNumber(num)...), nil
	case KindString:
		// One spelling per string: escapes are undone and redone.
		s, err := d.ReadString()
		if err != nil {
			return nil, err
		}
		return AppendString(b, s), nil
	}
	raw, err := d.ReadRaw() // true, false, null
	if err != nil {
		return nil, err
	}
	return append(b, raw...), nil
}

func canonicalObject(d *Decoder, b []byte) ([]byte, error) {
	if err := d.BeginObject(); err != nil {
		return nil, err
	}
	members := map[string][]byte{}
	for {
		key, more, err := d.NextKey()
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
		name := string(key)
		v, err := canonical(d, nil)
		if err != nil {
			return nil, err
		}
		members[name] = v
	}
	names := make([]string, 0, len(members))
	for n := range members {
		names = append(names, n)
	}
	sort.Strings(names)
	b = append(b, '{')
	for _, n := range names {
		b = AppendString(b, n)
		b = append(b, ':')
		b = append(b, members[n]...)
		b = append(b, ',')
	}
	return append(b, '}'), nil
}

// maxExponent bounds the exponents canonicalNumber expands exactly; beyond
// it the text is kept as written (1e400 and 10e399 then count as different,
// a price paid for not allocating megabytes for 1e999999).
const maxExponent = 1000

func canonicalNumber(num []byte) string {
	if e := strings.IndexAny(string(num), "eE"); e >= 0 {
		x, err := strconv.Atoi(strings.TrimPrefix(string(num[e+1:]), "+"))
		if err != nil || x > maxExponent || x < -maxExponent {
			return string(num)
		}
	}
	r, ok := new(big.Rat).SetString(string(num))
	if !ok {
		return string(num)
	}
	return r.RatString()
}

// FloatMultipleOf reports whether x is a multiple of m (multipleOf, written
// in the schema as m). It computes on the shortest decimal that reads back
// as x, which is the number as the JSON text wrote it, so 0.3 is a multiple
// of 0.1 as JSON Schema validators say, though not in binary floating point.
func FloatMultipleOf(x float64, m string) bool {
	return multipleOf(strconv.FormatFloat(x, 'g', -1, 64), m)
}

// IntMultipleOf reports whether x is a multiple of m (multipleOf).
func IntMultipleOf(x int64, m string) bool { return multipleOf(strconv.FormatInt(x, 10), m) }

// UintMultipleOf reports whether x is a multiple of m (multipleOf).
func UintMultipleOf(x uint64, m string) bool { return multipleOf(strconv.FormatUint(x, 10), m) }

func multipleOf(x, m string) bool {
	rx, ok1 := new(big.Rat).SetString(x)
	rm, ok2 := new(big.Rat).SetString(m)
	if !ok1 || !ok2 || rm.Sign() == 0 {
		return false
	}
	return new(big.Rat).Quo(rx, rm).IsInt()
}

// String formats beyond uri (IsURI). Generated validators and the
// differential test's reference validator both call these, so the two judge
// a format alike.

// IsDateTime reports whether s is an RFC 3339 date-time (format "date-time").
func IsDateTime(s string) bool {
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

// IsDate reports whether s is an RFC 3339 full-date (format "date").
func IsDate(s string) bool {
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

// IsUUID reports whether s is a UUID in its hyphenated form (format "uuid"):
// hex digits in groups of 8, 4, 4, 4 and 12, joined by hyphens.
func IsUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// IsRegex reports whether s is a regular expression (format "regex"), as
// Go's regexp (RE2) reads it: the dialect generated validators match with.
func IsRegex(s string) bool {
	_, err := regexp.Compile(s)
	return err == nil
}
