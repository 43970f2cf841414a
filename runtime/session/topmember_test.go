package session

import (
	"bytes"
	"encoding/json"
	"testing"
)

// topMember finds the value json.Unmarshal gives the "update" member of an
// object (exact key, the last of duplicates), or reports it did not (and
// the caller decodes properly); it never finds a different value.
func TestTopMemberAgreesWithUnmarshal(t *testing.T) {
	for _, in := range []string{
		`{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a \"b\" {c} [d]"}}}`,
		` { "update" : [1, {"update": 2}, "x\\"]"] , "z": null } `,
		`{"a":{"update":1},"update":"last"}`,
		`{"update":1,"update":2}`,
		`{"update":true}`,
		`{"update":-1.5e3}`,
		`{"x":"update","y":["update"]}`,
		`{"\u0075pdate":3}`,
		`{}`,
		`[]`,
		`{"update":`,
		`{"a":"unterminated`,
		`{"a":1 "update":2}`,
	} {
		got, ok := topMember([]byte(in), "update")
		var m map[string]json.RawMessage
		err := json.Unmarshal([]byte(in), &m)
		want, has := m["update"]
		if ok && (err != nil || !bytes.Equal(got, want)) {
			t.Errorf("%s: found %s; json.Unmarshal: %s, %v", in, got, want, err)
		}
		if !ok && err == nil && has && bytes.Contains([]byte(in), []byte(`"update"`)) {
			t.Errorf("%s: not found; json.Unmarshal finds %s", in, want)
		}
	}
}

func FuzzTopMember(f *testing.F) {
	f.Add([]byte(`{"sessionId":"s","update":{"a":[1,"]"]}}`))
	f.Add([]byte(`{"update":1,"update":{"x":"\\"}"}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		got, ok := topMember(in, "update")
		if !ok {
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(in, &m); err == nil && !bytes.Equal(got, m["update"]) {
			t.Errorf("%q: found %s, json.Unmarshal %s", in, got, m["update"])
		}
	})
}
