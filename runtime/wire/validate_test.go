package wire

import (
	"errors"
	"reflect"
	"testing"
)

func violations(t *testing.T, v *Validator) []Violation {
	t.Helper()
	var ve *ValidationError
	if err := v.Err(); err != nil && !errors.As(err, &ve) {
		t.Fatalf("Err is %T, not *ValidationError", err)
	}
	if ve == nil {
		return nil
	}
	return ve.Violations
}

func TestRawValues(t *testing.T) {
	var v Validator
	v.Push("_meta")
	v.RawValues(map[string]Raw{
		"ok":    Raw(`{"a":[1,null]}`),
		"empty": nil, // unset: nothing to check
		"a/b":   Raw(`{"a":`),
		"bad":   Raw(`tru`),
	})
	v.Pop()
	v.RawValues(nil)
	want := []Violation{
		{"/_meta/a~1b", "is not valid JSON"},
		{"/_meta/bad", "is not valid JSON"},
	}
	if got := violations(t, &v); !reflect.DeepEqual(got, want) {
		t.Fatalf("violations %v, want %v", got, want)
	}
}

func TestDeclared(t *testing.T) {
	var v Validator
	v.Push("x")
	v.Declared(Fields{{"other", Raw("1")}, {"name", Raw("2")}, {"_meta", Raw("{}")}}, "name", "_meta")
	v.Pop()
	v.Declared(Fields{{"name", Raw("1")}}) // no declared members: nothing collides
	want := []Violation{
		{"/x/_meta", "is a declared member; set its field instead of Unknown"},
		{"/x/name", "is a declared member; set its field instead of Unknown"},
	}
	if got := violations(t, &v); !reflect.DeepEqual(got, want) {
		t.Fatalf("violations %v, want %v", got, want)
	}
	unknown := Fields{{"other", Raw("1")}}
	if n := testing.AllocsPerRun(100, func() { v.Declared(unknown, "name", "_meta") }); n != 0 {
		t.Fatalf("Declared without a collision allocates %v times", n)
	}
}
