package wire

import (
	"strings"
	"testing"
)

// ask embeds the tagged union mode, whose payloads embed the union scope,
// told apart by shape: the members of all three levels are members of one
// JSON object, as in ACP's elicitation request.
type ask struct {
	Message string
	Mode    mode
	Unknown Fields
}

type mode struct {
	Form  *form
	URL   *link
	Other *otherMode
}

type form struct {
	Schema  string
	Scope   scope
	Unknown Fields
}

type link struct {
	URL     string
	Scope   scope
	Unknown Fields
}

// otherMode is mode's catch-all: it keeps the tag and embeds scope too.
type otherMode struct {
	Mode    string
	Scope   scope
	Unknown Fields
}

type scope struct {
	Session *inSession
	Request *inRequest
}

type inSession struct {
	SessionID string
	Unknown   Fields
}

type inRequest struct {
	RequestID string
	Origin    string
	Unknown   Fields
}

var (
	objectInSession = Object{Name: "t.inSession", Type: (*inSession)(nil), Members: []Member{
		{Name: "sessionId", Field: "SessionID", Flags: Required, Value: &String},
	}}
	objectInRequest = Object{Name: "t.inRequest", Type: (*inRequest)(nil), Members: []Member{
		{Name: "requestId", Field: "RequestID", Flags: Required, Value: &String},
		{Name: "origin", Field: "Origin", Flags: Required, Value: &String},
	}}
	unionScope = Union{Name: "scope", Type: (*scope)(nil), Variants: []Variant{
		{Name: "Session", Role: VariantShape, Keys: []string{"sessionId"}, Payload: &objectInSession},
		{Name: "Request", Role: VariantShape, Keys: []string{"requestId"}, Payload: &objectInRequest},
	}}
	objectForm = Object{Name: "t.form", Type: (*form)(nil), Union: &unionScope, UnionField: "Scope", Members: []Member{
		{Name: "schema", Field: "Schema", Flags: Required, Value: &String},
	}}
	objectLink = Object{Name: "t.link", Type: (*link)(nil), Union: &unionScope, UnionField: "Scope", Members: []Member{
		{Name: "url", Field: "URL", Flags: Required, Value: &String},
	}}
	objectOtherMode = Object{Name: "t.otherMode", Type: (*otherMode)(nil), Union: &unionScope, UnionField: "Scope", Members: []Member{
		{Name: "mode", Field: "Mode", Flags: Required, Value: &String},
	}}
	unionMode = Union{Name: "mode", Type: (*mode)(nil), Discriminator: "mode", Variants: []Variant{
		{Name: "Form", Role: VariantTagged, Tag: "form", Payload: &objectForm},
		{Name: "URL", Role: VariantTagged, Tag: "url", Payload: &objectLink},
		{Name: "Other", Role: VariantCatchAll, Payload: &objectOtherMode},
	}}
	objectAsk = Object{Name: "t.ask", Type: (*ask)(nil), Union: &unionMode, UnionField: "Mode", Members: []Member{
		{Name: "message", Field: "Message", Flags: Required, Value: &String},
	}}
)

func decodeAsk(in string, mode Mode) (ask, error) {
	var a ask
	err := DecodeTable(NewDecoder([]byte(in), mode), &a, &objectAsk)
	return a, err
}

// TestTableNestedEmbedding: both levels of variant are selected from the
// object ahead, each level's members decode into its payload, and unknown
// members stay with the outermost struct; encoding writes them back in
// the same order, and Validate reports inner violations at their pointers.
func TestTableNestedEmbedding(t *testing.T) {
	for _, tc := range []struct {
		in   string
		good func(a ask) bool
	}{
		{`{"message":"hi","mode":"form","schema":"s","sessionId":"x","z":1}`, func(a ask) bool {
			return a.Mode.Form != nil && a.Mode.Form.Schema == "s" && a.Mode.Form.Scope.Session != nil &&
				a.Mode.Form.Scope.Session.SessionID == "x" && len(a.Unknown) == 1 &&
				len(a.Mode.Form.Unknown) == 0 && len(a.Mode.Form.Scope.Session.Unknown) == 0
		}},
		{`{"message":"hi","mode":"url","url":"u","requestId":"r","origin":"o"}`, func(a ask) bool {
			return a.Mode.URL != nil && a.Mode.URL.URL == "u" && a.Mode.URL.Scope.Request != nil &&
				a.Mode.URL.Scope.Request.Origin == "o" && len(a.Unknown) == 0
		}},
		{`{"message":"hi","mode":"custom","sessionId":"x"}`, func(a ask) bool {
			return a.Mode.Other != nil && a.Mode.Other.Mode == "custom" && a.Mode.Other.Scope.Session != nil
		}},
	} {
		a, err := decodeAsk(tc.in, Strict)
		if err != nil || !tc.good(a) {
			t.Fatalf("%s: %v, decoded %+v", tc.in, err, a)
		}
		if got := string(AppendTable(nil, &a, &objectAsk)); got != tc.in {
			t.Errorf("round trip of %s gave %s", tc.in, got)
		}
		var vd Validator
		ValidateTable(&vd, &a, &objectAsk)
		if err := vd.Err(); err != nil {
			t.Errorf("%s: %v", tc.in, err)
		}
	}
	checkNestedValidate(t)
}

// TestTableNestedRequired: each level's required members are checked
// against the variants selected at every level, and an object no inner
// variant matches fails.
func TestTableNestedRequired(t *testing.T) {
	for in, want := range map[string]string{
		`{"mode":"form","schema":"s","sessionId":"x"}`:                 `missing required member "message"`,
		`{"message":"m","mode":"form","sessionId":"x"}`:                `missing required member "schema"`,
		`{"message":"m","mode":"url","url":"u","requestId":"r"}`:       `missing required member "origin"`,
		`{"message":"m","mode":"form","schema":"s"}`:                   `matches no variant of scope`,
		`{"message":"m","mode":"form","schema":"s","sessionId":false}`: `sessionId`,
	} {
		for _, m := range []Mode{Strict, Lenient} {
			if _, err := decodeAsk(in, m); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: got %v, want %q", in, err, want)
			}
		}
	}
}

// checkNestedValidate: violations of the inner levels of a decoded value
// are reported at the pointers of the one object, and encoding refuses an
// inner union with no variant set.
func checkNestedValidate(t *testing.T) {
	t.Helper()
	a, err := decodeAsk(`{"message":"m","mode":"form","schema":"s","sessionId":"x"}`, Strict)
	if err != nil || a.Mode.Form == nil || a.Mode.Form.Scope.Session == nil {
		t.Fatalf("decoded %+v: %v", a, err)
	}
	a.Mode.Form.Scope.Session.Unknown = Fields{{Name: "sessionId", Value: Raw(`"y"`)}}
	a.Mode.Form.Scope.Request = &inRequest{RequestID: "r"}
	var vd Validator
	ValidateTable(&vd, &a, &objectAsk)
	err = vd.Err()
	if err == nil || !strings.Contains(err.Error(), "/sessionId") || !strings.Contains(err.Error(), "scope") {
		t.Errorf("validate gave %v", err)
	}
	a.Mode.Form.Scope = scope{}
	if _, err := MarshalTable(&a, &objectAsk); err == nil || !strings.Contains(err.Error(), "no variant of scope") {
		t.Errorf("no inner variant set: MarshalTable gave %v", err)
	}
}
