package wire

import (
	"strings"
	"testing"
)

// figure decodes like a generated struct: "x" and "y" required, "label"
// optional, and an embedded union "shape" whose variant is chosen by "kind".
type figure struct {
	X, Y    int64
	Label   *string
	Shape   shape
	Unknown Fields
}

// shape is an embedded union: "circle" requires "r", "box" requires "w"
// and "h".
type shape struct {
	Circle *struct{ R int64 }
	Box    *struct{ W, H int64 }
}

var (
	figureMembers  = Members{Required: []string{"x", "y"}}
	circleRequired = []string{"r"}
	boxRequired    = []string{"w", "h"}
)

func (v *figure) decodeField(d *Decoder, key []byte) (int, error) {
	switch string(key) {
	case "x":
		return 0, AtKey(DecodeInt64(&v.X, d), "x")
	case "y":
		return 1, AtKey(DecodeInt64(&v.Y, d), "y")
	case "label":
		v.Label = new(string)
		return Optional, AtKey(DecodeString(v.Label, d), "label")
	}
	return Inner(v.Shape.decodeField(d, key))
}

func (v *shape) decodeField(d *Decoder, key []byte) (int, error) {
	switch {
	case string(key) == "kind":
		return Optional, d.Skip()
	case v.Circle != nil && string(key) == "r":
		return 0, DecodeInt64(&v.Circle.R, d)
	case v.Box != nil && string(key) == "w":
		return 0, DecodeInt64(&v.Box.W, d)
	case v.Box != nil && string(key) == "h":
		return 1, DecodeInt64(&v.Box.H, d)
	}
	return NotMember, nil
}

func (v *figure) required(w int) []string {
	switch {
	case w == 0:
		return figureMembers.Required
	case v.Shape.Circle != nil:
		return Level(w-1, circleRequired)
	case v.Shape.Box != nil:
		return Level(w-1, boxRequired)
	}
	return nil
}

func (v *figure) DecodeJSON(d *Decoder) error {
	*v = figure{}
	_, tag, _, err := d.ScanKey("kind")
	if err != nil {
		return err
	}
	switch string(tag) {
	case "circle":
		v.Shape.Circle = new(struct{ R int64 })
	case "box":
		v.Shape.Box = new(struct{ W, H int64 })
	}
	return DecodeObject(d, &v.Unknown, v.decodeField, &figureMembers, v.required)
}

func TestDecodeObjectMembersAndUnknown(t *testing.T) {
	var v figure
	in := `{"y":2,"other":[1],"kind":"box","x":1,"w":3,"h":4,"label":"p","z":null}`
	if err := Decode([]byte(in), &v, Strict); err != nil {
		t.Fatal(err)
	}
	if v.X != 1 || v.Y != 2 || *v.Label != "p" || v.Shape.Box.W != 3 || v.Shape.Box.H != 4 {
		t.Fatalf("decoded %+v", v)
	}
	if len(v.Unknown) != 2 || v.Unknown[0].Name != "other" || string(v.Unknown[1].Value) != "null" {
		t.Fatalf("unknown members %v", v.Unknown)
	}
}

func TestDecodeObjectNamesTheFirstMissingRequiredMember(t *testing.T) {
	for in, missing := range map[string]string{
		`{"y":2}`:                                `"x"`,
		`{"x":1}`:                                `"y"`,
		`{"x":1,"y":2,"kind":"circle"}`:          `"r"`,
		`{"x":1,"y":2,"kind":"box","w":1}`:       `"h"`,
		`{"kind":"box","w":1,"h":2,"x":1}`:       `"y"`,
		`{"x":1,"y":2,"kind":"box","h":1,"r":1}`: `"w"`,
	} {
		var v figure
		err := Decode([]byte(in), &v, Strict)
		if err == nil || !strings.Contains(err.Error(), "missing required member "+missing) {
			t.Errorf("%s: %v, want member %s missing", in, err, missing)
		}
	}
	var v figure
	if err := Decode([]byte(`{"x":1,"y":2,"kind":"circle","r":5}`), &v, Strict); err != nil {
		t.Fatal(err)
	}
}

func TestDecodeObjectErrorsStop(t *testing.T) {
	for in, want := range map[string]string{
		`{"x":"a","y":2}`: "/x: expected integer",
		`{"x":1,"y":2,`:   "unexpected end of input",
		`[1]`:             "expected object",
	} {
		var v figure
		if err := Decode([]byte(in), &v, Strict); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
}

// The loop keeps its seen slots on its own stack: decoding an object whose
// members are numbers allocates nothing.
func TestDecodeObjectAllocatesNothingOfItsOwn(t *testing.T) {
	data := []byte(`{"x":1,"y":2,"kind":"box","w":3,"h":4}`)
	d := NewDecoder(nil, Strict)
	v := new(figure)
	v.Shape.Box = new(struct{ W, H int64 })
	n := testing.AllocsPerRun(100, func() {
		d.Reset(data, Strict)
		box := v.Shape.Box
		if err := v.DecodeJSON(d); err != nil {
			t.Fatal(err)
		}
		v.Shape.Box = box
	})
	if n != 1 {
		t.Errorf("%v allocations per decode; the box variant's payload is the only one", n)
	}
}
