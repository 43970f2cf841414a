package wire

import (
	"strings"
	"testing"
)

// dog is a variant payload: a cold struct with a table.
type dog struct {
	Name    string
	Unknown Fields
}

// other is a catch-all payload: it keeps the tag it was given.
type other struct {
	Kind    string
	Unknown Fields
}

// pet is a closed tagged union, animal an open one, place one told apart by shape.
type pet struct {
	Dog     *dog
	Spot    *spot
	Unknown *UnknownVariant
}

type animal struct {
	Dog   *dog
	Other *other
}

type place struct {
	At    *spot
	Named *dog
}

var (
	objectDog   = Object{Name: "t.dog", Type: (*dog)(nil), Members: []Member{{Name: "name", Field: "Name", Flags: Required, Value: &String}}}
	objectOther = Object{Name: "t.other", Type: (*other)(nil), Members: []Member{{Name: "kind", Field: "Kind", Flags: Required, Value: &String}}}
	unionPet    = Union{Name: "pet", Type: (*pet)(nil), Discriminator: "kind", KeepsUnknown: true, Variants: []Variant{
		{Name: "Dog", Role: VariantTagged, Tag: "dog", Payload: &objectDog},
		{Name: "Spot", Role: VariantTagged, Tag: "spot", Payload: &objectSpot},
	}}
	unionAnimal = Union{Name: "animal", Type: (*animal)(nil), Discriminator: "kind", Variants: []Variant{
		{Name: "Dog", Role: VariantTagged, Tag: "dog", Payload: &objectDog},
		{Name: "Other", Role: VariantCatchAll, Payload: &objectOther},
	}}
	unionPlace = Union{Name: "place", Type: (*place)(nil), Order: []int{1, 0}, Variants: []Variant{
		{Name: "At", Role: VariantShape, Keys: []string{"x"}, Payload: &objectSpot},
		{Name: "Named", Role: VariantShape, Keys: []string{"name"}, Payload: &objectDog},
	}}
)

func decodeUnion(t *testing.T, in string, mode Mode, v any, u *Union) error {
	t.Helper()
	return DecodeUnion(NewDecoder([]byte(in), mode), v, u)
}

func validateUnion(v any, u *Union) error {
	var vd Validator
	ValidateUnion(&vd, v, u)
	return vd.Err()
}

func TestUnionTableRoundTrip(t *testing.T) {
	for _, in := range []string{
		`{"kind":"dog","name":"rex","age":3}`,
		`{"kind":"spot","x":1,"y":2}`,
	} {
		var p pet
		if err := decodeUnion(t, in, Strict, &p, &unionPet); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := string(AppendUnion(nil, &p, &unionPet)); got != in {
			t.Errorf("round trip of %s gave %s", in, got)
		}
		if err := validateUnion(&p, &unionPet); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
}

func TestUnionTableTags(t *testing.T) {
	var p pet
	for in, want := range map[string]string{
		`{"kind":"cat"}`:          `unknown kind "cat" of pet`,
		`{"name":"rex"}`:          `missing discriminator "kind"`,
		`{"kind":1}`:              `kind`,
		`{"kind":"dog"}`:          `missing required member "name"`,
		`{"kind":"spot","x":"a"}`: `x`,
	} {
		err := decodeUnion(t, in, Strict, &p, &unionPet)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
	in := `{"kind":"cat","lives":9}`
	if err := decodeUnion(t, in, Lenient, &p, &unionPet); err != nil || p.Unknown == nil || p.Unknown.Tag != "cat" {
		t.Fatalf("lenient %s: %v, %+v", in, err, p)
	}
	if got := string(AppendUnion(nil, &p, &unionPet)); got != in {
		t.Errorf("unknown variant encoded as %s", got)
	}
	if err := validateUnion(&p, &unionPet); err == nil || !strings.Contains(err.Error(), `unknown kind "cat"`) {
		t.Errorf("unknown variant validated as %v", err)
	}
}

func TestUnionTableVariantCount(t *testing.T) {
	for _, p := range []pet{{}, {Dog: &dog{Name: "a"}, Spot: &spot{}}} {
		var vd Validator
		ValidateUnion(&vd, &p, &unionPet)
		if vd.EncodeErr("t.pet") == nil {
			t.Errorf("%+v: no encode error", p)
		}
	}
	if got := string(AppendUnion(nil, &pet{}, &unionPet)); got != "{}" {
		t.Errorf("empty union encoded as %s", got)
	}
}

func TestUnionTableCatchAll(t *testing.T) {
	var a animal
	if err := decodeUnion(t, `{"kind":"cat"}`, Strict, &a, &unionAnimal); err != nil || a.Other == nil || a.Other.Kind != "cat" {
		t.Fatalf("catch-all: %v, %+v", err, a)
	}
	if got := string(AppendUnion(nil, &a, &unionAnimal)); got != `{"kind":"cat"}` {
		t.Errorf("catch-all encoded as %s", got)
	}
	a.Other.Kind = "dog"
	if err := validateUnion(&a, &unionAnimal); err == nil || !strings.Contains(err.Error(), "catch-all variant Other") {
		t.Errorf("known tag in the catch-all validated as %v", err)
	}
}

func TestUnionTableShape(t *testing.T) {
	var p place
	if err := decodeUnion(t, `{"x":1,"y":2,"name":"a"}`, Strict, &p, &unionPlace); err != nil || p.Named == nil || p.At != nil {
		t.Errorf("Order tries Named first: %v, %+v", err, p)
	}
	if err := decodeUnion(t, `{"name":"a"}`, Strict, &p, &unionPlace); err != nil || p.Named == nil || p.At != nil {
		t.Errorf("by name: %v, %+v", err, p)
	}
	if err := decodeUnion(t, `{"x":1,"y":2}`, Strict, &p, &unionPlace); err != nil || p.At == nil || p.Named != nil {
		t.Errorf("by x: %v, %+v", err, p)
	}
	err := decodeUnion(t, `{"z":1}`, Strict, &p, &unionPlace)
	if want := `matches no variant of place: expected a member "name" or "x"`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("no match: got %v, want %q", err, want)
	}
}

func TestUnionTableAllocatesLikeGeneratedCode(t *testing.T) {
	in := []byte(`{"kind":"dog","name":"rex"}`)
	var p pet
	d := NewDecoder(nil, Strict)
	n := testing.AllocsPerRun(50, func() {
		d.Reset(in, Strict)
		if err := DecodeUnion(d, &p, &unionPet); err != nil {
			t.Fatal(err)
		}
	})
	// The payload and its name: what the generated selectVariant allocated too.
	if n > 2 {
		t.Errorf("decoding allocated %v times, want at most 2", n)
	}
	if n := testing.AllocsPerRun(50, func() { _ = validateUnion(&p, &unionPet) }); n != 0 {
		t.Errorf("validating allocated %v times", n)
	}
}

// auth is an anyOf union: a tagged variant and an untagged fallback.
type auth struct {
	Spot *spot
	Dog  *dog
}

var unionAuth = Union{Name: "auth", Type: (*auth)(nil), Discriminator: "kind", Variants: []Variant{
	{Name: "Spot", Role: VariantTagged, Tag: "spot", Payload: &objectSpot},
	{Name: "Dog", Role: VariantFallback, Payload: &objectDog},
}}

func TestUnionTableFallback(t *testing.T) {
	for in, want := range map[string]string{
		`{"kind":"spot","x":1,"y":2}`: "Spot",
		`{"kind":"spot","name":"a"}`:  "Dog", // the tagged variant fails: retried as the fallback
		`{"kind":"cat","name":"a"}`:   "Dog",
		`{"kind":7,"name":"a"}`:       "Dog",
		`{"name":"a"}`:                "Dog",
	} {
		var a auth
		if err := decodeUnion(t, in, Strict, &a, &unionAuth); err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		got := map[bool]string{true: "Spot", false: "Dog"}[a.Spot != nil]
		if got != want || (a.Spot != nil) == (a.Dog != nil) {
			t.Errorf("%s: got %+v, want %s", in, a, want)
		}
		// The fallback keeps the tag it saw, after its declared members.
		if out := string(AppendUnion(nil, &a, &unionAuth)); want == "Dog" && strings.Contains(in, "kind") && !strings.HasSuffix(out, in[len(`{`):strings.Index(in, ",")]+"}") {
			t.Errorf("%s: encoded as %s", in, out)
		}
	}
	var a auth
	err := decodeUnion(t, `{"kind":"spot","x":1}`, Strict, &a, &unionAuth)
	if err == nil || !strings.Contains(err.Error(), `missing required member "y"`) {
		t.Errorf("both variants failing: got %v, want the tagged variant's error", err)
	}
}

// owner embeds the pet union: its variant's members sit beside the struct's.
type owner struct {
	ID      string
	Pet     pet
	Unknown Fields
}

var objectOwner = Object{Name: "t.owner", Type: (*owner)(nil), Union: &unionPet, UnionField: "Pet", Members: []Member{
	{Name: "id", Field: "ID", Flags: Required, Value: &String},
}}

func TestTableEmbeddedUnion(t *testing.T) {
	in := `{"id":"a","kind":"dog","name":"rex","z":1}`
	var o owner
	if err := DecodeTable(NewDecoder([]byte(in), Strict), &o, &objectOwner); err != nil {
		t.Fatal(err)
	}
	if o.Pet.Dog == nil || o.Pet.Dog.Name != "rex" || len(o.Unknown) != 1 || len(o.Pet.Dog.Unknown) != 0 {
		t.Fatalf("decoded %+v", o)
	}
	if got := string(AppendTable(nil, &o, &objectOwner)); got != in {
		t.Errorf("round trip gave %s", got)
	}
	for in, want := range map[string]string{
		`{"id":"a","kind":"dog"}`:   `missing required member "name"`,
		`{"kind":"dog","name":"r"}`: `missing required member "id"`,
		`{"id":"a","kind":"cat"}`:   `unknown kind "cat" of pet`,
	} {
		err := DecodeTable(NewDecoder([]byte(in), Strict), &o, &objectOwner)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
	if _, err := MarshalTable(&owner{ID: "a"}, &objectOwner); err == nil || !strings.Contains(err.Error(), "no variant of pet") {
		t.Errorf("no variant set: MarshalTable gave %v", err)
	}
	in = `{"id":"a","kind":"cat","lives":9}`
	if err := DecodeTable(NewDecoder([]byte(in), Lenient), &o, &objectOwner); err != nil || o.Pet.Unknown == nil {
		t.Fatalf("lenient %s: %v, %+v", in, err, o)
	}
	if got := string(AppendTable(nil, &o, &objectOwner)); got != in {
		t.Errorf("unknown variant round trip gave %s", got)
	}
}
