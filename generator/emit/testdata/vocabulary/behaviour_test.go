package vocab

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/runtime/wire"
)

type value interface {
	Validate() error
}

// violations decodes data strictly into v and validates it; a decode error
// is returned as one violation at "decode".
func violations(t *testing.T, v value, data string) []string {
	t.Helper()
	if err := wire.DecodeWith([]byte(data), v, TableOf(v), wire.Strict); err != nil {
		return []string{"decode: " + err.Error()}
	}
	return list(v.Validate())
}

func list(err error) []string {
	var ve *wire.ValidationError
	if err == nil {
		return nil
	}
	if !errors.As(err, &ve) {
		return []string{err.Error()}
	}
	var out []string
	for _, x := range ve.Violations {
		out = append(out, x.Pointer+": "+x.Reason)
	}
	return out
}

// check validates a value built in Go.
func check[T any, P interface {
	*T
	Validate() error
}](x T) []string {
	return list(P(&x).Validate())
}

func want(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("violations\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestBehaviour(t *testing.T) {
	t.Run("array constraints", func(t *testing.T) {
		want(t, violations(t, new(Tags), `[]`), ": must have at least 1 item")
		want(t, violations(t, new(Tags), `["a","b","c","d"]`), ": must have at most 3 items")
		want(t, violations(t, new(Tags), `["a","b","a"]`), ": items 0 and 2 are equal; they must be unique")
		want(t, violations(t, new(Tags), `["a","b","c"]`))
		// Objects are equal as JSON: members in any order.
		want(t, violations(t, new(Blocks), `[{"text":"a","p":1,"q":[2]},{"q":[2.0],"text":"a","p":1}]`), ": items 0 and 1 are equal; they must be unique")
		want(t, violations(t, new(Blocks), `[{"text":"a","p":1},{"text":"a","p":2}]`))
	})
	t.Run("number constraints", func(t *testing.T) {
		want(t, check(Ratio(0)), ": must be greater than 0")
		want(t, check(Ratio(1)), ": must be less than 1")
		want(t, check(Ratio(0.3)), ": must be a multiple of 0.125")
		want(t, check(Ratio(0.375)))
		// An integer's exclusive bound 0.5 means at least 1.
		want(t, check(Count(0)), ": must be greater than 0.5") // 0 is a multiple of 3
		want(t, check(Count(4)), ": must be a multiple of 3")
		want(t, check(Count(102)), ": must be at most 100")
		want(t, check(Count(3)))
	})
	t.Run("closed map typed by its one pattern", func(t *testing.T) {
		want(t, violations(t, new(Env), `{"HOME":"/root","lower":"x"}`), `/lower: is not allowed: other members' names must match "^[A-Z_]+$"`)
		want(t, check(Env{"PATH": "/bin"}))
		if got := violations(t, new(Env), `{"PATH":1}`); len(got) != 1 || !strings.HasPrefix(got[0], "decode:") {
			t.Errorf("a value of the wrong type decodes: %v", got)
		}
	})
	t.Run("propertyNames", func(t *testing.T) {
		want(t, violations(t, new(Labels), `{"abc":1,"toolong":2,"AB":3}`),
			`/AB: name must be a string matching "^[a-z]+$"`, "/toolong: name must be at most 4 characters long")
	})
	t.Run("object-wide rules of a struct", func(t *testing.T) {
		want(t, violations(t, new(Settings), `{"name":"n","x-new":"too long","n-count":-1,"other":true}`),
			"/n-count: must be at least 0", "/x-new: must be at most 6 characters long")
		if got := violations(t, new(Settings), `{"other":"not a boolean"}`); len(got) != 1 || !strings.HasPrefix(got[0], "/other: ") {
			t.Errorf("additionalProperties not checked: %v", got)
		}
		// The patterns and propertyNames apply to declared members too.
		want(t, violations(t, new(Settings), `{"x-color":"magenta","a_too_long_name":true}`),
			"/a_too_long_name: name must be at most 10 characters long", "/x-color: must be at most 6 characters long")
		// dependentRequired, which gojsonschema (draft 7) only knows as dependencies.
		want(t, violations(t, new(Settings), `{"first":"Ada"}`), `/first: requires member "last" beside it`)
		want(t, violations(t, new(Settings), `{"first":"Ada","last":"Lovelace"}`))
		want(t, violations(t, new(Settings), `{"last":"Lovelace"}`))
	})
	t.Run("additionalProperties false", func(t *testing.T) {
		want(t, violations(t, new(Closed), `{"a":"x","b":1}`), "/b: is not allowed: the object has no members besides those it declares")
		want(t, violations(t, new(Closed), `{"a":"x"}`))
	})
	t.Run("content keywords are annotations", func(t *testing.T) {
		want(t, check(Image("not base64 %%%")))
	})
	t.Run("string formats", func(t *testing.T) {
		want(t, violations(t, new(Stamps), `{"at":"2026-11-23T03:54:42.5+01:00","day":"2026-11-23","id":"0f8fad5b-d9cb-469f-a165-70867728950e","match":"^a+$"}`))
		want(t, violations(t, new(Stamps), `{"at":"2026-11-23 03:54","day":"23.11.2026","id":"0f8fad5b","match":"(?<=a)b"}`),
			"/at: must be an RFC 3339 date-time", "/day: must be an RFC 3339 full-date", "/id: must be a UUID", "/match: must be a regular expression (RE2)")
	})
	t.Run("inline enums", func(t *testing.T) {
		want(t, violations(t, new(Message), `{"jsonrpc":"1.0","level":3}`), `/jsonrpc: must be one of "2.0"`, "/level: must be one of 1, 2")
		want(t, violations(t, new(Message), `{"jsonrpc":"2.0","level":null}`))
	})
	t.Run("nullable variant", func(t *testing.T) {
		var m MaybeText
		if err := wire.DecodeWith([]byte(`null`), &m, TableOf(&m), wire.Strict); err != nil || !m.Null || string(m.AppendJSON(nil)) != "null" {
			t.Errorf("null: %+v %v", m, err)
		}
		if err := wire.DecodeWith([]byte(`"x"`), &m, TableOf(&m), wire.Strict); err != nil || m.Text == nil || *m.Text != "x" {
			t.Errorf("string: %+v %v", m, err)
		}
	})
	t.Run("variant of any value", func(t *testing.T) {
		var a Anything
		if err := wire.DecodeWith([]byte(`{"text":"abc"}`), &a, TableOf(&a), wire.Strict); err != nil || a.Block == nil {
			t.Errorf("a valid Block: %+v %v", a, err)
		}
		// Too long for a Block: anyOf accepts it through the other variant.
		if err := wire.DecodeWith([]byte(`{"text":"abcdefgh"}`), &a, TableOf(&a), wire.Strict); err != nil || a.Other == nil || a.Validate() != nil {
			t.Errorf("an invalid Block: %+v %v", a, err)
		}
		if err := wire.Decode([]byte(`[1,"two"]`), &a, wire.Strict); err != nil || string(a.Other) != `[1,"two"]` {
			t.Errorf("an array: %+v %v", a, err)
		}
	})
	t.Run("names by the naming rule", func(t *testing.T) {
		o := NewOptionsBlockArray([]Block{{Text: "a"}})
		_ = NewOptionsTagsArray
		c := Clashes{ValidateString: new(string), UnknownInteger: new(int64), SessionIDString: new(string), SessionIDInteger: new(int64)}
		_ = AgentConnType{Peer: new(string)}
		if o.Validate() != nil || c.Validate() != nil {
			t.Error("renamed members do not validate")
		}
		if got := string(TableOf(&c).AppendValue(nil, &c)); got != `{"validate":"","unknown":0,"sessionId":"","session_id":0}` {
			t.Errorf("renamed members encode as %s", got)
		}
	})
}
