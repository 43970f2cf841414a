package wire

import (
	"sync"
	"testing"
)

// An Index answers each listed type's table, Methods for a type with its
// own codec methods, and nil for anything else (a value, not a pointer,
// included), also when its first lookups race.
func TestIndex(t *testing.T) {
	x := &Index{Entries: []Indexed{
		{Type: (*mood)(nil), Table: &enumMood},
		{Type: (*score)(nil), Table: &scalarScore},
		{Type: (*herd)(nil), Table: &objectHerd},
	}}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if got := x.Of(new(herd)); got != Table(&objectHerd) {
				t.Errorf("herd: %v", got)
			}
		})
	}
	wg.Wait()
	if got := x.Of(new(mood)); got != Table(&enumMood) {
		t.Errorf("mood: %v", got)
	}
	if got := x.Of(new(score)); got != Table(&scalarScore) {
		t.Errorf("score: %v", got)
	}
	if got := x.Of(new(level)); got != Table(OwnCodec{}) {
		t.Errorf("level (Coded): %v, want Methods", got)
	}
	for _, v := range []any{new(label), mood("calm"), nil} {
		if got := x.Of(v); got != nil {
			t.Errorf("%T: %v, want nil", v, got)
		}
	}
}
