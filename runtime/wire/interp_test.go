package wire

import (
	"errors"
	"strings"
	"testing"
)

// level is a type with its own methods, as a generated enum is: the
// interpreter reaches it through Coded.
type level string

func (v *level) DecodeJSON(d *Decoder) error {
	s, err := d.ReadString()
	if err == nil && s != "low" && s != "high" {
		return d.Errorf("unknown level %q", s)
	}
	*v = level(s)
	return err
}

func (v *level) AppendJSON(b []byte) []byte { return AppendString(b, string(*v)) }

func (v *level) ValidateWith(vd *Validator) {
	if *v != "low" && *v != "high" {
		vd.Add("unknown level " + string(*v))
	}
}

// spot and task are cold structs, described by the tables below as the
// generator describes them.
type spot struct {
	X, Y    int64
	Unknown Fields
}

type task struct {
	ID      string
	Title   *string
	Count   *uint32
	Done    bool
	Weight  *float64
	Level   *level
	At      *spot
	Points  []spot
	Tags    []string
	Levels  map[string]level
	Meta    map[string]Raw
	Data    Raw
	Unknown Fields
}

var (
	objectSpot = Object{Name: "t.spot", Type: (*spot)(nil), Members: []Member{
		{Name: "x", Field: "X", Flags: Required, Value: &Int64},
		{Name: "y", Field: "Y", Flags: Required, Value: &Int64},
	}}
	idRule     = StringRule{MinLength: 2, Pattern: prefixPattern('t'), PatternWhat: "a task id"}
	objectTask = Object{Name: "t.task", Type: (*task)(nil), Members: []Member{
		{Name: "id", Field: "ID", Flags: Required, Value: &Value{Shape: ShapeString, Rule: &idRule}},
		{Name: "title", Field: "Title", Flags: Pointer | Nullable | DefaultOnError, Value: &String},
		{Name: "count", Field: "Count", Flags: Pointer, Value: &Uint32},
		{Name: "done", Field: "Done", Flags: Required, Value: &Bool},
		{Name: "weight", Field: "Weight", Flags: Pointer, Value: &Float64},
		{Name: "level", Field: "Level", Flags: Pointer | DefaultOnNull, Value: &Value{Shape: ShapeCoded, Coded: (*level)(nil)}},
		{Name: "at", Field: "At", Flags: Pointer, Value: &Value{Shape: ShapeObject, Object: &objectSpot}},
		{Name: "points", Field: "Points", Value: &Value{Shape: ShapeSlice, SkipInvalid: true, Elem: &Value{Shape: ShapeObject, Object: &objectSpot}}},
		{Name: "tags", Field: "Tags", Flags: Required, Value: &Value{Shape: ShapeSlice, Elem: &String}},
		{Name: "levels", Field: "Levels", Value: &Value{Shape: ShapeMap, Elem: &Value{Shape: ShapeCoded, Coded: (*level)(nil)}}},
		{Name: "_meta", Field: "Meta", Value: &Value{Shape: ShapeMap, Elem: &RawJSON}},
		{Name: "data", Field: "Data", Value: &RawJSON},
	}}
)

func decodeTask(t *testing.T, in string, mode Mode) (*task, error) {
	t.Helper()
	var v task
	d := NewDecoder([]byte(in), mode)
	err := DecodeTable(d, &v, &objectTask)
	if err == nil {
		err = d.Finish()
	}
	return &v, err
}

// TestTableRoundTrip: members come back in table order with the unknown
// ones after them in input order, absent members stay absent, and every
// shape (pointers, nested tables, a Coded type, slices, maps, raw values)
// decodes and encodes as generated code does.
func TestTableRoundTrip(t *testing.T) {
	in := `{"zz":1,"tags":["a"],"done":true,"id":"t1","title":"x","count":3,"weight":0.5,"level":"low",` +
		`"at":{"y":2,"x":1,"k":[]},"points":[{"x":1,"y":2}],"levels":{"b":"high","a":"low"},"_meta":{"z":1,"a":{}},"data":[1, 2]}`
	want := `{"id":"t1","title":"x","count":3,"done":true,"weight":0.5,"level":"low","at":{"x":1,"y":2,"k":[]},` +
		`"points":[{"x":1,"y":2}],"tags":["a"],"levels":{"a":"low","b":"high"},"_meta":{"a":{},"z":1},"data":[1, 2],"zz":1}`
	v, err := decodeTask(t, in, Strict)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(AppendTable(nil, v, &objectTask)); got != want {
		t.Errorf("round trip:\n got %s\nwant %s", got, want)
	}
	min := `{"id":"t1","done":false,"tags":[]}`
	v, err = decodeTask(t, min, Strict)
	if err != nil {
		t.Fatal(err)
	}
	if v.Title != nil || v.Points != nil || v.Meta != nil || v.Data != nil || v.Tags == nil {
		t.Errorf("absent members set or [] lost: %+v", v)
	}
	if got := string(AppendTable(nil, v, &objectTask)); got != min {
		t.Errorf("minimal: got %s, want %s", got, min)
	}
}

// TestTableDecodeErrors: a missing required member is named, an error is
// located at its member and item, and leniency follows the member flags.
func TestTableDecodeErrors(t *testing.T) {
	for _, c := range []struct {
		name, in string
		mode     Mode
		want     string // "" for success
	}{
		{"missing required", `{"id":"t1","tags":[]}`, Strict, `missing required member "done"`},
		{"nested missing", `{"id":"t1","done":true,"tags":[],"at":{"x":1}}`, Strict, `missing required member "y"`},
		{"wrong type at item", `{"id":"t1","done":true,"tags":["a",2]}`, Strict, "tags/1"},
		{"strict default on error", `{"id":"t1","done":true,"tags":[],"title":5}`, Strict, "title"},
		{"lenient default on error", `{"id":"t1","done":true,"tags":[],"title":5}`, Lenient, ""},
		{"strict null for default on null", `{"id":"t1","done":true,"tags":[],"level":null}`, Strict, "level"},
		{"lenient null for default on null", `{"id":"t1","done":true,"tags":[],"level":null}`, Lenient, ""},
		{"nullable null", `{"id":"t1","done":true,"tags":[],"title":null}`, Strict, ""},
		{"coded type refuses", `{"id":"t1","done":true,"tags":[],"level":"mid"}`, Strict, `unknown level "mid"`},
		{"lenient skips invalid items", `{"id":"t1","done":true,"tags":[],"points":[{"x":1},{"x":1,"y":2}]}`, Lenient, ""},
		{"strict keeps invalid items", `{"id":"t1","done":true,"tags":[],"points":[{"x":1},{"x":1,"y":2}]}`, Strict, "points/0"},
		{"syntax", `{"id":"t1","done":tru}`, Lenient, "invalid"},
	} {
		v, err := decodeTask(t, c.in, c.mode)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want an error with %q", c.name, err, c.want)
		}
		if c.name == "lenient skips invalid items" && len(v.Points) != 1 {
			t.Errorf("%s: kept %d items", c.name, len(v.Points))
		}
		if c.name == "lenient default on error" && v.Title != nil {
			t.Errorf("%s: title kept", c.name)
		}
	}
}

// TestTableValidate: constraints, Coded types, nested tables, slices, maps
// and raw values report at their pointers; an unknown member named like a
// declared one is reported; a NaN is not a number.
func TestTableValidate(t *testing.T) {
	nan := 0.0
	nan /= nan
	bad := level("mid")
	v := &task{
		ID:      "x",
		Weight:  &nan,
		Level:   &bad,
		Points:  []spot{{Unknown: Fields{{Name: "x", Value: Raw("1")}}}},
		Levels:  map[string]level{"k": "odd"},
		Meta:    map[string]Raw{"m": Raw("{")},
		Data:    Raw("nope"),
		Unknown: Fields{{Name: "id", Value: Raw(`"t2"`)}},
	}
	var vd Validator
	ValidateTable(&vd, v, &objectTask)
	var verr *ValidationError
	if err := vd.Err(); !errors.As(err, &verr) {
		t.Fatalf("no violations: %v", err)
	}
	want := []Violation{
		{"/_meta/m", "is not valid JSON"},
		{"/data", "is not valid JSON"},
		{"/id", "is a declared member; set its field instead of Unknown"},
		{"/id", "must be a task id"},
		{"/id", "must be at least 2 characters long"},
		{"/level", "unknown level mid"},
		{"/levels/k", "unknown level odd"},
		{"/points/0/x", "is a declared member; set its field instead of Unknown"},
		{"/weight", "must be a finite number"},
	}
	if len(verr.Violations) != len(want) {
		t.Fatalf("got %v, want %v", verr.Violations, want)
	}
	for i, w := range want {
		if verr.Violations[i] != w {
			t.Errorf("violation %d: got %v, want %v", i, verr.Violations[i], w)
		}
	}
	ok := &task{ID: "t1", Tags: []string{"a"}}
	if err := func() error { var vd Validator; ValidateTable(&vd, ok, &objectTask); return vd.Err() }(); err != nil {
		t.Errorf("valid task: %v", err)
	}
}

// TestTableMembers: a union whose variant is cold decodes and encodes the
// variant's members through DecodeMember and AppendMembers.
func TestTableMembers(t *testing.T) {
	var p spot
	d := NewDecoder([]byte(`2`), Strict)
	if slot, err := DecodeMember(d, &p, &objectSpot, []byte("y")); slot != 1 || err != nil || p.Y != 2 {
		t.Errorf("y: slot %d, err %v, value %d", slot, err, p.Y)
	}
	if slot, _ := DecodeMember(d, &p, &objectSpot, []byte("z")); slot != NotMember {
		t.Errorf("z: slot %d, want NotMember", slot)
	}
	b, comma := AppendMembers([]byte(`{"kind":"p"`), &p, &objectSpot, true)
	if got := string(b) + "}"; got != `{"kind":"p","x":0,"y":2}` || !comma {
		t.Errorf("members: %s", got)
	}
	if names := objectSpot.RequiredNames(); strings.Join(names, ",") != "x,y" {
		t.Errorf("required: %v", names)
	}
}

// TestTableAllocatesLikeGeneratedCode: decoding a table-driven object
// allocates only for what it keeps (strings, slices, pointers), not for
// the interpreter's own work.
func TestTableAllocatesLikeGeneratedCode(t *testing.T) {
	in := []byte(`{"x":1,"y":2}`)
	var p spot
	d := NewDecoder(nil, Strict)
	allocs := testing.AllocsPerRun(100, func() {
		d.Reset(in, Strict)
		if err := DecodeTable(d, &p, &objectSpot); err != nil {
			t.Fatal(err)
		}
		_ = AppendTable(make([]byte, 0, 64), &p, &objectSpot)
	})
	if allocs > 1 { // the output buffer
		t.Errorf("%v allocations per decode and encode, want at most 1", allocs)
	}
}

// TestTableMismatchPanics: a table that does not fit its struct is a
// generator bug, reported on first use.
func TestTableMismatchPanics(t *testing.T) {
	bad := Object{Name: "t.spot", Type: (*spot)(nil), Members: []Member{{Name: "x", Field: "Nope", Value: &Int64}}}
	defer func() {
		if recover() == nil {
			t.Error("no panic for a field the struct lacks")
		}
	}()
	_ = AppendTable(nil, &spot{}, &bad)
}

// TestEnum: a closed enum's table refuses and reports values it does not
// list, with the type's name, and keeps the ones it does.
func TestEnum(t *testing.T) {
	e := &Enum{Name: "Mood", Values: []string{"calm", "cross"}}
	var s string
	if err := DecodeEnum(NewDecoder([]byte(`"cross"`), Strict), &s, e); err != nil || s != "cross" {
		t.Errorf("listed value: %q, %v", s, err)
	}
	if err := DecodeEnum(NewDecoder([]byte(`"glad"`), Lenient), &s, e); err == nil || !strings.Contains(err.Error(), `unknown Mood value "glad"`) {
		t.Errorf("unlisted value: %v", err)
	}
	var vd Validator
	e.Check(&vd, "calm")
	e.Check(&vd, "glad")
	if err := vd.Err(); err == nil || err.Error() != `(root): unknown Mood value "glad"` {
		t.Errorf("check: %v", err)
	}
}

// TestTableValidateAllocatesNothing: a valid value costs no allocation,
// and the caller's Validator stays on its stack although the walk calls
// Coded types through interfaces; violations land at the caller's position.
// (Checking a map of values other than raw JSON allocates, through
// reflection; _meta maps are raw.)
func TestTableValidateAllocatesNothing(t *testing.T) {
	low := level("low")
	v := &task{ID: "t1", Tags: []string{"a"}, Level: &low, Meta: map[string]Raw{"a": Raw("1")}}
	n := testing.AllocsPerRun(100, func() {
		var vd Validator
		ValidateTable(&vd, v, &objectTask)
		if vd.Count() != 0 {
			t.Fatal(vd.Err())
		}
	})
	if n != 0 {
		t.Errorf("%v allocations per valid check", n)
	}
	var vd Validator
	vd.Push("outer")
	ValidateTable(&vd, &task{ID: "t"}, &objectTask)
	vd.Pop()
	if err := vd.Err(); err == nil || err.Error() != "/outer/id: must be at least 2 characters long" {
		t.Errorf("nested: %v", err)
	}
}

// scored has the bounds a table checks on a member's own value: a number's
// and an array's item count.
type scored struct {
	Score   *float64
	Tags    []string
	Unknown Fields
}

var objectScored = Object{Name: "t.scored", Type: (*scored)(nil), Members: []Member{
	{Name: "score", Field: "Score", Flags: Pointer, Value: &Value{Shape: ShapeFloat64, Floats: []FloatBound{
		{Limit: 0, Lower: true, What: "must be at least 0"},
		{Limit: 1, Exclusive: true, What: "must be less than 1"},
	}}},
	{Name: "tags", Field: "Tags", Flags: Required, Value: &Value{Shape: ShapeSlice, Elem: &String,
		Items: &IntRule{HasMin: true, Min: 1, MinWhat: "must have at least 1 item", HasMax: true, Max: 2, MaxWhat: "must have at most 2 items"}}},
}}

func TestTableBounds(t *testing.T) {
	for in, want := range map[string]string{
		`{"score":0,"tags":["a"]}`:        "",
		`{"score":-0.5,"tags":["a"]}`:     "/score: must be at least 0",
		`{"score":1,"tags":["a","b"]}`:    "/score: must be less than 1",
		`{"tags":[]}`:                     "/tags: must have at least 1 item",
		`{"tags":["a","b","c"]}`:          "/tags: must have at most 2 items",
		`{"score":0.99,"tags":["a","b"]}`: "",
	} {
		var v scored
		if err := DecodeTable(NewDecoder([]byte(in), Strict), &v, &objectScored); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		var vd Validator
		ValidateTable(&vd, &v, &objectScored)
		got := ""
		if err := vd.Err(); err != nil {
			got = err.Error()
		}
		if want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
}

// pair holds a cold struct by value and a slice of items without pointers:
// the members the interpreter decodes in place rather than into fresh memory.
type pair struct {
	At      spot
	Ns      []int64
	Unknown Fields
}

var objectPair = Object{Name: "t.pair", Type: (*pair)(nil), Members: []Member{
	{Name: "at", Field: "At", Value: &Value{Shape: ShapeObject, Object: &objectSpot}},
	{Name: "ns", Field: "Ns", Value: &Value{Shape: ShapeSlice, Elem: &Int64}},
}}

// A member given twice is the later one whole, and decoding into a used
// value leaves nothing of it: the interpreter clears only what it cannot
// know to be zero.
func TestTableDecodesIntoClearedMemory(t *testing.T) {
	v := pair{At: spot{X: 9, Unknown: Fields{{Name: "old", Value: Raw(`1`)}}}, Ns: []int64{7, 7, 7}, Unknown: Fields{{Name: "old", Value: Raw(`1`)}}}
	in := `{"ns":[1,2],"at":{"x":1,"y":2,"extra":true},"ns":[3],"at":{"y":4,"x":3}}`
	if err := DecodeTable(NewDecoder([]byte(in), Strict), &v, &objectPair); err != nil {
		t.Fatal(err)
	}
	if v.At.X != 3 || v.At.Y != 4 || v.At.Unknown != nil || len(v.Ns) != 1 || v.Ns[0] != 3 || v.Unknown != nil {
		t.Errorf("decoded %+v, want only the later members", v)
	}
}

// TestValidateErr: one call reports what a Validator walking the table
// reports, and nil for a valid value; the error keeps its violations after
// the pooled Validator is reused.
func TestValidateErr(t *testing.T) {
	bad := &task{ID: "x", Tags: []string{}}
	var vd Validator
	ValidateTable(&vd, bad, &objectTask)
	want := vd.Err().Error()
	err := ValidateErr(bad, &objectTask)
	if err == nil || err.Error() != want {
		t.Fatalf("ValidateErr = %v, want %s", err, want)
	}
	if err := ValidateErr(&task{ID: "t1", Tags: []string{}}, &objectTask); err != nil {
		t.Errorf("valid task: %v", err)
	}
	if err.Error() != want {
		t.Errorf("violations changed after reuse: %v", err)
	}
}

// TestMarshalTableTakesValue: the struct itself encodes as a pointer to it
// does; a value of another type is still refused.
func TestMarshalTableTakesValue(t *testing.T) {
	title := "x"
	v := task{ID: "t1", Title: &title, Tags: []string{"a"}, At: &spot{X: 1, Y: 2}}
	byPtr, err1 := MarshalTable(&v, &objectTask)
	byVal, err2 := MarshalTable(v, &objectTask)
	if err1 != nil || err2 != nil || string(byVal) != string(byPtr) {
		t.Errorf("value %s (%v), pointer %s (%v)", byVal, err2, byPtr, err1)
	}
	defer func() {
		if recover() == nil {
			t.Error("no panic for a struct of another type")
		}
	}()
	_, _ = MarshalTable(spot{}, &objectTask)
}

// TestScalarAndEnumTakeValues: a named scalar's and a string enum's table
// append the value itself as they append through a pointer to it, and
// refuse a value of another type.
func TestScalarAndEnumTakeValues(t *testing.T) {
	s := &Scalar{Type: (*level)(nil), Value: &String}
	lv := level("low")
	if got, want := string(s.AppendValue(nil, lv)), string(s.AppendValue(nil, &lv)); got != want || got != `"low"` {
		t.Errorf("scalar: value %s, pointer %s", got, want)
	}
	e := &Enum{Name: "level", Type: (*level)(nil), Values: []string{"low", "high"}}
	if got := string(e.AppendValue(nil, level("high"))); got != `"high"` {
		t.Errorf("enum: value %s", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("no panic for a value of another type")
		}
	}()
	_ = s.AppendValue(nil, "low")
}
