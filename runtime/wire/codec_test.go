package wire

import (
	"errors"
	"strings"
	"testing"
)

// mood is a closed enum, label an open one and score a named scalar, each
// reached through its table as generated types are.
type (
	mood  string
	label string
	score int32
)

var (
	enumMood    = Enum{Name: "mood", Type: (*mood)(nil), Values: []string{"calm", "cross"}}
	enumLabel   = Enum{Name: "label", Type: (*label)(nil), Open: true}
	scalarScore = Scalar{Type: (*score)(nil), Value: &Value{Shape: ShapeInt32, Ints: &IntRule{HasMin: true, Min: 0, MinWhat: "must be at least 0"}}}
	// herd holds a union and enums inside a table, as ShapeUnion and ShapeEnum.
	objectHerd = Object{Name: "t.herd", Type: (*herd)(nil), Members: []Member{
		{Name: "pet", Field: "Pet", Flags: Pointer, Value: &Value{Shape: ShapeUnion, Union: &unionPet}},
		{Name: "moods", Field: "Moods", Value: &Value{Shape: ShapeSlice, Elem: &Value{Shape: ShapeEnum, Enum: &enumMood}}},
		{Name: "label", Field: "Label", Value: &Value{Shape: ShapeEnum, Enum: &enumLabel}},
	}}
)

type herd struct {
	Pet     *pet
	Moods   []mood
	Label   label
	Unknown Fields
}

// TestTablesAreTables: every kind of table decodes, encodes and validates a
// value through the Table interface, and DecodeWith decodes a whole
// document with one, in either mode.
func TestTablesAreTables(t *testing.T) {
	cases := []struct {
		name  string
		table Table
		v     any
		in    string
		bad   string // a value that decodes but fails validation; "" for none
	}{
		{"object", &objectSpot, new(spot), `{"x":1,"y":2}`, ""},
		{"union", &unionPet, new(pet), `{"kind":"dog","name":"rex"}`, `{"kind":"wolf"}`},
		{"enum", &enumMood, new(mood), `"calm"`, ""},
		{"open enum", &enumLabel, new(label), `"anything"`, ""},
		{"scalar", &scalarScore, new(score), `7`, `-1`},
		{"nested", &objectHerd, new(herd), `{"pet":{"kind":"spot","x":1,"y":2},"moods":["calm","cross"],"label":"x"}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := DecodeWith([]byte(c.in), c.v, c.table, Strict); err != nil {
				t.Fatal(err)
			}
			if got := string(c.table.AppendValue(nil, c.v)); got != c.in {
				t.Errorf("encodes as %s, want %s", got, c.in)
			}
			var vd Validator
			if c.table.ValidateValue(&vd, c.v); vd.Err() != nil {
				t.Errorf("valid value: %v", vd.Err())
			}
			if err := DecodeWith([]byte(c.in+" x"), c.v, c.table, Strict); err == nil {
				t.Error("trailing data accepted")
			}
			if c.bad == "" {
				return
			}
			if err := DecodeWith([]byte(c.bad), c.v, c.table, Lenient); err != nil {
				t.Fatal(err)
			}
			if c.table.ValidateValue(&vd, c.v); vd.Err() == nil {
				t.Errorf("%s validates", c.bad)
			}
		})
	}
}

// TestEnumTableRefuses: a closed enum's table refuses an unlisted value
// when decoding, directly or inside an object, naming the type.
func TestEnumTableRefuses(t *testing.T) {
	var m mood
	if err := DecodeWith([]byte(`"glad"`), &m, &enumMood, Lenient); err == nil || !strings.Contains(err.Error(), `unknown mood value "glad"`) {
		t.Errorf("enum: %v", err)
	}
	var h herd
	if err := DecodeWith([]byte(`{"moods":["calm","glad"]}`), &h, &objectHerd, Lenient); err == nil || !strings.Contains(err.Error(), `/moods/1: unknown mood value "glad"`) {
		t.Errorf("in an object: %v", err)
	}
	h = herd{Moods: []mood{"glad"}}
	var vd Validator
	if objectHerd.ValidateValue(&vd, &h); vd.Err() == nil || !strings.Contains(vd.Err().Error(), `/moods/0: unknown mood value "glad"`) {
		t.Errorf("validate: %v", vd.Err())
	}
}

// TestMarshalWith: a union anywhere in the value with no variant set fails
// encoding with a *EncodeError naming the type; a whole value encodes.
func TestMarshalWith(t *testing.T) {
	h := herd{Pet: &pet{}}
	_, err := MarshalWith(&h, &objectHerd, "t.herd")
	var ee *EncodeError
	if !errors.As(err, &ee) || ee.Type != "t.herd" {
		t.Fatalf("got %v, want an *EncodeError of t.herd", err)
	}
	h.Pet.Dog = &dog{Name: "rex"}
	if b, err := MarshalWith(&h, &objectHerd, "t.herd"); err != nil || string(b) != `{"pet":{"kind":"dog","name":"rex"},"label":""}` {
		t.Errorf("got %s, %v", b, err)
	}
}

// TestTableOfAnotherTypePanics: a value of another type given to an enum or
// scalar table is a generator bug, reported at once.
func TestTableOfAnotherTypePanics(t *testing.T) {
	for _, tb := range []Table{&enumMood, &scalarScore} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%T: no panic for a value of another type", tb)
				}
			}()
			var s string
			tb.AppendValue(nil, &s)
		}()
	}
}
