package acphttp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// hostDo sends one request to url naming host in its Host header and
// returns the status and the Acp-Connection-Id answered.
func hostDo(t *testing.T, client *http.Client, method, url, host, body string, h map[string]string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s with Host %s: %v", method, host, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusSwitchingProtocols { // else the body is the socket
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	}
	return resp.StatusCode, resp.Header.Get(HeaderConnectionID)
}

var (
	jsonCT  = map[string]string{"Content-Type": "application/json"}
	upgrade = map[string]string{
		"Connection": "Upgrade", "Upgrade": "websocket",
		"Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
	}
)

// port returns the port of a test server's /acp URL.
func port(url string) string {
	hp := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/acp")
	return hp[strings.LastIndexByte(hp, ':')+1:]
}

// A page that rebinds its own name to the server's address sends that name
// as Host: every method of both profiles is answered 403 before auth,
// origin or routing, with or without Origin, and nothing is opened.
func TestRebindingRefused(t *testing.T) {
	for _, auth := range []AuthFunc{nil, tokens} {
		url := startServer(t, NewServer(serveTest, Options{Auth: auth, Logger: quiet()}))
		evil := "evil.example:" + port(url)
		for _, tc := range []struct {
			name, method, body string
			h                  map[string]string
		}{
			{"initialize without Origin", http.MethodPost, initBody, jsonCT},
			{"initialize with its own Origin", http.MethodPost, initBody, map[string]string{"Content-Type": "application/json", "Origin": "http://" + evil}},
			{"WebSocket upgrade", http.MethodGet, "", upgrade},
			{"event stream", http.MethodGet, "", map[string]string{"Accept": "text/event-stream", HeaderConnectionID: "x"}},
			{"DELETE", http.MethodDelete, "", map[string]string{HeaderConnectionID: "x"}},
			{"PUT", http.MethodPut, "", nil},
		} {
			st, id := hostDo(t, http.DefaultClient, tc.method, url, evil, tc.body, tc.h)
			if st != http.StatusForbidden || id != "" {
				t.Errorf("auth %v, %s with Host %s: %d (connection %q), want 403", auth != nil, tc.name, evil, st, id)
			}
		}
	}
}

// Without AllowedHosts, the loopback names are accepted with any port or
// none: localhost (also as the absolute "localhost."), 127.0.0.0/8 and
// [::1]; on both profiles.
func TestLoopbackHostsAccepted(t *testing.T) {
	url := startServer(t, NewServer(serveTest, Options{Logger: quiet()}))
	p := port(url)
	for _, host := range []string{"localhost:" + p, "LocalHost:1", "localhost", "localhost.:" + p, "127.0.0.1:" + p, "127.0.0.2", "[::1]:" + p, "[::1]"} {
		if st, id := hostDo(t, http.DefaultClient, http.MethodPost, url, host, initBody, jsonCT); st != http.StatusOK || id == "" {
			t.Errorf("initialize with Host %s: %d, want 200 and a connection", host, st)
		}
		if st, _ := hostDo(t, http.DefaultClient, http.MethodGet, url, host, "", upgrade); st != http.StatusSwitchingProtocols {
			t.Errorf("WebSocket upgrade with Host %s: %d, want 101", host, st)
		}
	}
	for _, host := range []string{"localhost.evil.example:" + p, "127.0.0.1.evil.example", "evil.example", "0.0.0.0:" + p, "::1", "[::1"} {
		if st, _ := hostDo(t, http.DefaultClient, http.MethodPost, url, host, initBody, jsonCT); st != http.StatusForbidden {
			t.Errorf("initialize with Host %s: %d, want 403", host, st)
		}
	}
}

// AllowedHosts replaces the loopback default: "host" entries take any
// port, "host:port" entries that port, compared without case or trailing
// dot; AnyHost accepts every Host.
func TestAllowedHosts(t *testing.T) {
	url := startServer(t, NewServer(serveTest, Options{AllowedHosts: []string{"acp.example", "Other.Example:8443", "[::1]"}, Logger: quiet()}))
	for host, want := range map[string]int{
		"acp.example":            http.StatusOK,
		"ACP.example.:1234":      http.StatusOK,
		"other.example:8443":     http.StatusOK,
		"other.example:9999":     http.StatusForbidden,
		"other.example":          http.StatusForbidden,
		"[::1]:" + port(url):     http.StatusOK,
		"localhost:" + port(url): http.StatusForbidden,
		"evil.example":           http.StatusForbidden,
	} {
		if st, _ := hostDo(t, http.DefaultClient, http.MethodPost, url, host, initBody, jsonCT); st != want {
			t.Errorf("initialize with Host %s: %d, want %d", host, st, want)
		}
	}
	url = startServer(t, NewServer(serveTest, Options{AllowedHosts: []string{AnyHost}, Logger: quiet()}))
	if st, _ := hostDo(t, http.DefaultClient, http.MethodPost, url, "evil.example", initBody, jsonCT); st != http.StatusOK {
		t.Errorf("initialize with any Host under AnyHost: %d, want 200", st)
	}
}

// An Origin passes when it is the server's own, scheme, host and port
// alike, or an OriginPatterns entry matches all three; "null" only when
// listed.
func TestOriginSchemeHostPort(t *testing.T) {
	patterns := []string{"https://trusted.example", "https://*.wild.example:*", "plain.example"}
	url := startServer(t, NewServer(serveTest, Options{OriginPatterns: patterns, Logger: quiet()}))
	self := "127.0.0.1:" + port(url)
	for origin, want := range map[string]int{
		"http://" + self:                http.StatusOK,
		"HTTP://" + self:                http.StatusOK,
		"https://" + self:               http.StatusForbidden,
		"http://127.0.0.1:1":            http.StatusForbidden,
		"http://127.0.0.1":              http.StatusForbidden,
		"http://localhost:" + port(url): http.StatusForbidden,
		"null":                          http.StatusForbidden,
		"https://trusted.example":       http.StatusOK,
		"https://trusted.example:443":   http.StatusOK,
		"http://trusted.example":        http.StatusForbidden,
		"https://trusted.example:8443":  http.StatusForbidden,
		"https://a.wild.example:8443":   http.StatusOK,
		"https://wild.example":          http.StatusForbidden,
		"http://plain.example":          http.StatusOK,
		"https://plain.example":         http.StatusForbidden,
		"http://plain.example:8080":     http.StatusForbidden,
		"http://" + self + "/path":      http.StatusForbidden,
		"http://user@" + self:           http.StatusForbidden,
	} {
		if st, _ := hostDo(t, http.DefaultClient, http.MethodPost, url, self, initBody, map[string]string{"Content-Type": "application/json", "Origin": origin}); st != want {
			t.Errorf("initialize from Origin %s: %d, want %d", origin, st, want)
		}
	}
	ws := map[string]string{"Origin": "https://" + self}
	for k, v := range upgrade {
		ws[k] = v
	}
	if st, _ := hostDo(t, http.DefaultClient, http.MethodGet, url, self, "", ws); st != http.StatusForbidden {
		t.Errorf("WebSocket upgrade from https://%s on an http server: %d, want 403", self, st)
	}
	url = startServer(t, NewServer(serveTest, Options{OriginPatterns: []string{"null"}, Logger: quiet()}))
	if st, _ := hostDo(t, http.DefaultClient, http.MethodPost, url, self, initBody, map[string]string{"Content-Type": "application/json", "Origin": "null"}); st != http.StatusOK {
		t.Errorf("initialize from Origin null when listed: %d, want 200", st)
	}
}

// A server reached over TLS is the https origin, not the http one.
func TestOriginOverTLS(t *testing.T) {
	s := NewServer(serveTest, Options{Logger: quiet()})
	ts := httptest.NewTLSServer(s)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		defer cancel()
		s.Shutdown(ctx)
		ts.Close()
	})
	self := strings.TrimPrefix(ts.URL, "https://")
	for origin, want := range map[string]int{
		"https://" + self: http.StatusOK,
		"http://" + self:  http.StatusForbidden,
	} {
		if st, _ := hostDo(t, ts.Client(), http.MethodPost, ts.URL, self, initBody, map[string]string{"Content-Type": "application/json", "Origin": origin}); st != want {
			t.Errorf("initialize over TLS from Origin %s: %d, want %d", origin, st, want)
		}
	}
}
