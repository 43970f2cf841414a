package wire

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestVariantsAndEncodeErr(t *testing.T) {
	var v Validator
	v.Variants("U", "A, B, C")
	v.Push("x")
	v.Variants("U", "A, B, C", true, false, true)
	v.Pop()
	v.Add("not about encoding")
	err := v.EncodeErr("pkg.T")
	var ee *EncodeError
	if !errors.As(err, &ee) || len(ee.Violations) != 2 {
		t.Fatalf("EncodeErr: %v", err)
	}
	for _, want := range []string{"cannot encode pkg.T", "no variant of U is set (one of A, B, C)", "/x: more than one variant of U is set (A, C)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	var ok Validator
	ok.Add("only a value problem")
	if ok.EncodeErr("T") != nil {
		t.Fatal("a non-union violation blocks encoding")
	}
}

func TestUnknownVariant(t *testing.T) {
	u := UnknownVariant{Tag: "new", Fields: Fields{{Name: "a", Value: Raw("1")}}}
	if b, _ := u.AppendFields(nil, "type", false); string(b) != `"type":"new","a":1` {
		t.Fatalf("AppendFields: %s", b)
	}
	var strict, lenient Validator
	lenient.AcceptUnknown = true
	strict.UnknownVariant("type", "new", false)
	lenient.UnknownVariant("type", "new", false)
	if strict.Count() != 1 || lenient.Count() != 0 {
		t.Fatalf("unknown tag: strict %d, lenient %d violations", strict.Count(), lenient.Count())
	}
	lenient.UnknownVariant("type", "text", true)
	if lenient.Count() != 1 {
		t.Fatal("a known tag in Unknown is accepted")
	}
}

type handlerIface interface{ DoThing(p *int) error }

type typo struct{}

func (typo) DoThign(p *int) error { return nil }
func (typo) DoThing(p *int) error { return nil }
func (typo) Unrelated() string    { return "" }

func TestCheckHandler(t *testing.T) {
	err := CheckHandler(typo{}, reflect.TypeFor[handlerIface]())
	if err == nil || !strings.Contains(err.Error(), "DoThign (did you mean DoThing?)") || strings.Contains(err.Error(), "Unrelated") {
		t.Fatalf("CheckHandler: %v", err)
	}
	if d := editDistance("sessionpromt", "sessionprompt"); d != 1 {
		t.Fatalf("edit distance %d", d)
	}
}
