package acphttp

import (
	"net/http"
	"testing"
)

// A Streamable HTTP POST of a method in Options.SessionMethods needs
// Acp-Session-Id even when its params name no session; nil options mean the
// default list, an empty list none.
func TestSessionMethodsOption(t *testing.T) {
	for _, tc := range []struct {
		name    string
		methods []string
		body    string
		want    int
	}{
		{"default, session/cancel", nil, `{"jsonrpc":"2.0","method":"session/cancel","params":{}}`, http.StatusBadRequest},
		{"default, session/archive", nil, `{"jsonrpc":"2.0","method":"session/archive","params":{}}`, http.StatusBadRequest},
		{"default, another method", nil, `{"jsonrpc":"2.0","method":"x/note","params":{}}`, http.StatusAccepted},
		{"none", []string{}, `{"jsonrpc":"2.0","method":"session/cancel","params":{}}`, http.StatusAccepted},
		{"none, params name a session", []string{}, `{"jsonrpc":"2.0","method":"x/note","params":{"sessionId":"s"}}`, http.StatusBadRequest},
		{"own list", []string{"x/note"}, `{"jsonrpc":"2.0","method":"x/note","params":{}}`, http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := startServer(t, NewServer(serveTest, Options{SessionMethods: tc.methods, Logger: quiet()}))
			st, h, _ := rawPost(t, url, initBody, nil)
			if st != http.StatusOK {
				t.Fatalf("initialize: %d", st)
			}
			conn := map[string]string{HeaderConnectionID: h.Get(HeaderConnectionID)}
			if st, _, body := rawPost(t, url, tc.body, conn); st != tc.want {
				t.Errorf("%s: %d %q, want %d", tc.body, st, body, tc.want)
			}
		})
	}
}

// DefaultSessionMethods returns a copy: changing it changes no default.
func TestDefaultSessionMethodsIsACopy(t *testing.T) {
	DefaultSessionMethods()[0] = "changed"
	if DefaultSessionMethods()[0] == "changed" {
		t.Fatal("DefaultSessionMethods shares its array")
	}
}
