package wire

import (
	"strings"
	"testing"
)

var (
	listLevels = List{Type: (*[]level)(nil), Value: &Value{Shape: ShapeSlice, Elem: &Value{Shape: ShapeCoded, Coded: (*level)(nil)}}}
	listSpots  = List{Type: (*[]spot)(nil), Value: &Value{Shape: ShapeSlice, SkipInvalid: true, Elem: &Value{Shape: ShapeObject, Object: &objectSpot}}}
	listTags   = List{Type: (*[][]string)(nil), Value: &Value{Shape: ShapeSlice, Elem: &Value{Shape: ShapeSlice, Elem: &String}}}
)

func decodeList[T any](t *testing.T, l *List, in string, mode Mode) ([]T, error) {
	t.Helper()
	var s []T
	d := NewDecoder([]byte(in), mode)
	err := l.DecodeValue(d, &s)
	if err == nil {
		err = d.Finish()
	}
	return s, err
}

// TestListRoundTrip: items with their own methods, items described by a
// table and nested arrays decode in order, past the first allocation's
// room, and encode back as they came.
func TestListRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name, in string
		round    func(t *testing.T, in string) string
	}{
		{"coded", `["low","high","low","low","high","high","low","high","low","high","low"]`, func(t *testing.T, in string) string {
			s, err := decodeList[level](t, &listLevels, in, Strict)
			if err != nil {
				t.Fatal(err)
			}
			if len(s) != 11 || s[1] != "high" || s[10] != "low" {
				t.Errorf("decoded %q", s)
			}
			return string(listLevels.AppendValue(nil, &s))
		}},
		{"table", `[{"x":1,"y":2},{"x":3,"y":4,"k":true},{"x":5,"y":6}]`, func(t *testing.T, in string) string {
			s, err := decodeList[spot](t, &listSpots, in, Strict)
			if err != nil {
				t.Fatal(err)
			}
			if len(s) != 3 || s[2].X != 5 || s[1].Unknown == nil {
				t.Errorf("decoded %+v", s)
			}
			return string(listSpots.AppendValue(nil, &s))
		}},
		{"nested", `[["a","b"],[],["c"]]`, func(t *testing.T, in string) string {
			s, err := decodeList[[]string](t, &listTags, in, Strict)
			if err != nil {
				t.Fatal(err)
			}
			if len(s) != 3 || s[1] == nil || s[2][0] != "c" {
				t.Errorf("decoded %q", s)
			}
			return string(listTags.AppendValue(nil, &s))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.round(t, c.in); got != c.in {
				t.Errorf("round trip:\n got %s\nwant %s", got, c.in)
			}
		})
	}
}

// TestListEmptyAndErrors: [] decodes to a non-nil empty slice, a bad item
// is an error at its index, and in lenient mode a list that skips invalid
// items drops it (one that does not still fails).
func TestListEmptyAndErrors(t *testing.T) {
	s, err := decodeList[level](t, &listLevels, `[]`, Strict)
	if err != nil || s == nil || len(s) != 0 {
		t.Errorf("[] = %#v, %v; want a non-nil empty slice", s, err)
	}
	if _, err := decodeList[level](t, &listLevels, `["low","middling"]`, Lenient); err == nil || !strings.Contains(err.Error(), "/1") {
		t.Errorf("bad item: %v; want an error at /1", err)
	}
	spots, err := decodeList[spot](t, &listSpots, `[{"x":1,"y":2},{"x":"no","y":2},{"x":3,"y":4}]`, Lenient)
	if err != nil || len(spots) != 2 || spots[1].X != 3 {
		t.Errorf("lenient skip: %+v, %v; want the two good spots", spots, err)
	}
	if _, err := decodeList[spot](t, &listSpots, `[{"x":1,"y":2},{"x":"no","y":2}]`, Strict); err == nil {
		t.Error("strict: a bad item is no error")
	}
}

// TestListWrongTypePanics: a list used on a slice of another type is a
// generator bug, reported at once.
func TestListWrongTypePanics(t *testing.T) {
	l := List{Type: (*[]string)(nil), Value: &Value{Shape: ShapeSlice, Elem: &String}}
	var s []level
	defer func() {
		if recover() == nil {
			t.Error("no panic for a slice of another type")
		}
	}()
	_ = l.AppendValue(nil, &s)
}

// TestListAllocatesOnceForShortArrays: the first allocation has room for a
// few items, so a short array costs one allocation, not one per doubling.
func TestListAllocatesOnceForShortArrays(t *testing.T) {
	in := []byte(`[1,2,3,4]`)
	l := List{Type: (*[]int64)(nil), Value: &Value{Shape: ShapeSlice, Elem: &Int64}}
	d := NewDecoder(nil, Strict)
	var s []int64
	allocs := testing.AllocsPerRun(100, func() {
		d.Reset(in, Strict)
		if err := l.DecodeValue(d, &s); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 1 || len(s) != 4 {
		t.Errorf("%v allocations decoding %v, want 1", allocs, s)
	}
}
