package jsonrpc

import (
	"errors"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/runtime/wire"
)

// PeekEnvelope returns each JSON-RPC member exactly as sent, the method's
// name when it is a string, and whether jsonrpc is "2.0".
func TestPeekEnvelope(t *testing.T) {
	for _, tc := range []struct {
		frame                              string
		id, method, params, result, errRaw string // "" is absent
		name                               string
		v2, methodIsString, idValid        bool
	}{
		{frame: `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[1]}}`,
			id: `1`, method: `"m"`, params: `{"a":[1]}`, name: "m", v2: true, methodIsString: true, idValid: true},
		{frame: ` { "id" : "x" , "method" : "a\u002fb" , "jsonrpc" : "2\u002e0" , "extra" : [1, {}] } `,
			id: `"x"`, method: `"a\u002fb"`, name: "a/b", v2: true, methodIsString: true, idValid: true},
		{frame: `{"jsonrpc":"2.0","id":7,"result":null}`, id: `7`, result: `null`, v2: true, idValid: true},
		{frame: `{"jsonrpc":"2.0","id":null,"error":{"code":1}}`, id: `null`, errRaw: `{"code":1}`, v2: true, idValid: true},
		{frame: `{"jsonrpc":"1.0","method":null,"params":null}`, method: `null`, params: `null`, idValid: true},
		{frame: `{"jsonrpc":2,"id":{},"method":1}`, id: `{}`, method: `1`},
		{frame: `{"jsonrpc":"2.0","method":"a","method":"b","id":1,"id":"2"}`,
			id: `"2"`, method: `"b"`, name: "b", v2: true, methodIsString: true, idValid: true},
		{frame: `{"jsonrpc":"2.0","jsonrpc":"1.0"}`, idValid: true},
		{frame: `{}`, idValid: true},
	} {
		e, err := PeekEnvelope([]byte(tc.frame))
		if err != nil {
			t.Errorf("%s: %v", tc.frame, err)
			continue
		}
		for _, m := range []struct {
			name string
			got  wire.Raw
			want string
		}{{"id", e.ID, tc.id}, {"method", e.Method, tc.method}, {"params", e.Params, tc.params}, {"result", e.Result, tc.result}, {"error", e.Error, tc.errRaw}} {
			if string(m.got) != m.want || (m.got == nil) != (m.want == "") {
				t.Errorf("%s: %s = %q, want %q", tc.frame, m.name, m.got, m.want)
			}
		}
		if e.Name != tc.name || e.V2 != tc.v2 || e.MethodIsString() != tc.methodIsString || e.IDValid() != tc.idValid {
			t.Errorf("%s: name %q v2 %v method string %v id valid %v", tc.frame, e.Name, e.V2, e.MethodIsString(), e.IDValid())
		}
	}
}

// A frame that is not JSON is a parse error, JSON that is not an object an
// invalid request; either way the reply is the frame error's RPCError.
func TestPeekEnvelopeRefuses(t *testing.T) {
	for _, tc := range []struct {
		frame string
		code  wire.ErrorCode
	}{
		{`{"jsonrpc":"2.0",`, wire.CodeParseError},
		{`{"id":1} x`, wire.CodeParseError},
		{`[1,`, wire.CodeParseError},
		{"{\"method\":\"\xff\"}", wire.CodeParseError},
		{strings.Repeat("[", wire.MaxDepth+1) + strings.Repeat("]", wire.MaxDepth+1), wire.CodeParseError},
		{``, wire.CodeParseError},
		{`[{"jsonrpc":"2.0","id":1,"method":"m"}]`, wire.CodeInvalidRequest},
		{`"x"`, wire.CodeInvalidRequest},
		{`null`, wire.CodeInvalidRequest},
	} {
		_, err := PeekEnvelope([]byte(tc.frame))
		var fe *FrameError
		if !errors.As(err, &fe) || fe.Code != tc.code || fe.Error() == "" {
			t.Errorf("%.40q: %v, want a frame error %d", tc.frame, err, tc.code)
			continue
		}
		r := fe.RPCError()
		want := map[wire.ErrorCode]string{wire.CodeParseError: "Parse error", wire.CodeInvalidRequest: "Invalid request"}[tc.code]
		if r.Code != tc.code || r.Message != want || string(r.Data.(wire.Raw)) != string(wire.AppendString([]byte(`{"details":`), fe.Reason))+"}" {
			t.Errorf("%.40q: reply %+v", tc.frame, r)
		}
	}
}

// Each frame is one of JSON-RPC 2.0's classes by its members: a null id
// or method counts as present, and a response need not carry a result.
func TestEnvelopeClasses(t *testing.T) {
	for _, tc := range []struct {
		frame   string
		class   string // "request", "notification", "response" or ""
		idNull  bool
		replyID string // "" is null
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"m"}`, "request", false, `1`},
		{`{"jsonrpc":"2.0","id":null,"method":"m"}`, "request", true, `null`},
		{`{"jsonrpc":"2.0","id":{},"method":"m"}`, "request", false, ``},
		{`{"jsonrpc":"2.0","id":"` + strings.Repeat("i", MaxIDLength) + `","method":"m"}`, "request", false, ``},
		{`{"jsonrpc":"2.0","id":1,"method":null}`, "request", false, `1`},
		{`{"jsonrpc":"2.0","method":"m"}`, "notification", false, ``},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, "response", false, ``},
		{`{"jsonrpc":"2.0","id":1}`, "response", false, ``},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, "response", true, ``},
		{`{"jsonrpc":"2.0","result":{}}`, "", false, ``},
		{`{}`, "", false, ``},
	} {
		e, err := PeekEnvelope([]byte(tc.frame))
		if err != nil {
			t.Fatalf("%.60s: %v", tc.frame, err)
		}
		class := ""
		for name, is := range map[string]bool{"request": e.IsRequest(), "notification": e.IsNotification(), "response": e.IsResponse()} {
			if is {
				if class != "" {
					t.Errorf("%.60s: both %s and %s", tc.frame, class, name)
				}
				class = name
			}
		}
		if class != tc.class || e.IDIsNull() != tc.idNull || string(e.ReplyID()) != tc.replyID {
			t.Errorf("%.60s: %q, id null %t, reply id %q; want %q, %t, %q", tc.frame, class, e.IDIsNull(), e.ReplyID(), tc.class, tc.idNull, tc.replyID)
		}
	}
}
