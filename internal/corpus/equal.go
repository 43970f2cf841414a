package corpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"sort"
	"strings"

	"github.com/acpgen/acpgen/runtime/jsonpointer"
)

// Equal reports whether two JSON documents mean the same, with one ACP rule:
// an object member whose value is null counts as equal to that member being
// absent (ACP's optional fields are nullable, and encoders may drop or keep
// them). Object member order does not matter; array order does; numbers
// compare by exact decimal value (1.0 == 1, 1e2 == 100) without going
// through float64; strings compare exactly. diff describes the first
// difference, located by a JSON pointer ("" is the whole document).
func Equal(a, b []byte) (equal bool, diff string, err error) {
	va, err := decodeOne(a)
	if err != nil {
		return false, "", fmt.Errorf("corpus: first document: %w", err)
	}
	vb, err := decodeOne(b)
	if err != nil {
		return false, "", fmt.Errorf("corpus: second document: %w", err)
	}
	d := compare(va, vb, "")
	return d == "", d, nil
}

func decodeOne(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the JSON value")
	}
	return v, nil
}

func compare(a, b any, ptr string) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return mismatch(ptr, a, b)
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys) // "first" difference must not depend on map order
		for _, k := range keys {
			av, bv := x[k], y[k] // a missing member reads as nil, like null
			p := ptr + "/" + jsonpointer.Escape(k)
			switch {
			case av == nil && bv == nil:
			case av == nil:
				return fmt.Sprintf("%s: absent or null vs %s", p, show(bv))
			case bv == nil:
				return fmt.Sprintf("%s: %s vs absent or null", p, show(av))
			default:
				if d := compare(av, bv, p); d != "" {
					return d
				}
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok {
			return mismatch(ptr, a, b)
		}
		for i := 0; i < len(x) && i < len(y); i++ {
			if d := compare(x[i], y[i], fmt.Sprintf("%s/%d", ptr, i)); d != "" {
				return d
			}
		}
		if len(x) != len(y) {
			return fmt.Sprintf("%s: array of %d items vs %d items", where(ptr), len(x), len(y))
		}
		return ""
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return mismatch(ptr, a, b)
		}
		nx, err1 := normalizeNumber(string(x))
		ny, err2 := normalizeNumber(string(y))
		if err1 != nil || err2 != nil || nx != ny {
			return mismatch(ptr, a, b)
		}
		return ""
	default: // string, bool, nil
		if a != b {
			return mismatch(ptr, a, b)
		}
		return ""
	}
}

// normalizeNumber rewrites a JSON number as sign, significant digits and a
// decimal exponent, so equal values give equal strings. Working on the text
// keeps big integers exact and, unlike big.Rat, costs nothing for a huge
// exponent such as 1e999999999.
func normalizeNumber(s string) (string, error) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, expText, hasExp := strings.Cut(strings.ToLower(s), "e")
	exp := new(big.Int)
	if hasExp {
		if _, ok := exp.SetString(strings.TrimPrefix(expText, "+"), 10); !ok {
			return "", fmt.Errorf("bad exponent in %q", s)
		}
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	exp.Sub(exp, big.NewInt(int64(len(frac))))
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return "0", nil // -0 == 0
	}
	trimmed := strings.TrimRight(digits, "0")
	exp.Add(exp, big.NewInt(int64(len(digits)-len(trimmed))))
	sign := ""
	if neg {
		sign = "-"
	}
	return sign + trimmed + "e" + exp.String(), nil
}

func mismatch(ptr string, a, b any) string {
	return fmt.Sprintf("%s: %s vs %s", where(ptr), show(a), show(b))
}

func where(ptr string) string {
	if ptr == "" {
		return "(root)"
	}
	return ptr
}

// show renders a value for a diff message, shortened to keep messages
// readable.
func show(v any) string {
	b, err := encode(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	const max = 80
	if r := []rune(string(b)); len(r) > max {
		return string(r[:max]) + "…"
	}
	return string(b)
}
