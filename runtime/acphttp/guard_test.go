package acphttp

import (
	"net/http/httptest"
	"testing"
)

func TestHostOriginAllowed(t *testing.T) {
	for _, c := range []struct {
		host, origin string
		want         bool
	}{
		{"127.0.0.1:8080", "", true},
		{"localhost:8080", "http://localhost:8080", true},
		{"evil.example:8080", "", false},                  // a rebound name
		{"127.0.0.1:8080", "http://evil.example", false},  // a page elsewhere
		{"127.0.0.1:8080", "http://127.0.0.1:8080", true}, // the server's own origin
		{"[::1]:9", "", true},
	} {
		r := httptest.NewRequest("POST", "http://x/", nil)
		r.Host = c.host
		if c.origin != "" {
			r.Header.Set("Origin", c.origin)
		}
		if got := HostOriginAllowed(r, nil, nil); got != c.want {
			t.Errorf("Host %q Origin %q: %v, want %v", c.host, c.origin, got, c.want)
		}
	}
}
