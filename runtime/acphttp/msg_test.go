package acphttp

import "testing"

// acphttp classifies by jsonrpc's predicates, routing answers by id: a
// request with id null is not one whose answer it can route, a response
// needs an id (with id null it answers no request), and a method must be
// a string.
func TestPeekClasses(t *testing.T) {
	for _, tc := range []struct {
		msg                 string
		ok                  bool
		request, note, resp bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"m"}`, true, true, false, false},
		{`{"jsonrpc":"2.0","id":null,"method":"m"}`, true, false, false, false},
		{`{"jsonrpc":"2.0","method":"m"}`, true, false, true, false},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, true, false, false, true},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, true, false, false, true},
		{`{"jsonrpc":"2.0","result":{}}`, true, false, false, false},
		{`{"jsonrpc":"2.0","id":1,"method":null}`, false, false, false, false},
		{`{"jsonrpc":"2.0","id":1,"method":7}`, false, false, false, false},
	} {
		p, ok := peekMessage([]byte(tc.msg))
		if ok != tc.ok || p.isRequest() != tc.request || p.isNotification() != tc.note || p.isResponse() != tc.resp {
			t.Errorf("%s: ok %t request %t notification %t response %t; want %t %t %t %t", tc.msg,
				ok, p.isRequest(), p.isNotification(), p.isResponse(), tc.ok, tc.request, tc.note, tc.resp)
		}
	}
}
