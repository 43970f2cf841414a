package acphttp

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// principals serves testAgent and reports each connection's principal, as
// its ServeFunc context and its Conn give it.
func principals(got chan<- [2]string) ServeFunc {
	return func(ctx context.Context, c *Conn) error {
		got <- [2]string{PrincipalFrom(ctx), c.Principal()}
		return serveTest(ctx, c)
	}
}

func principalOf(t *testing.T, got <-chan [2]string) string {
	t.Helper()
	select {
	case p := <-got:
		if p[0] != p[1] {
			t.Errorf("PrincipalFrom %q, Conn.Principal %q", p[0], p[1])
		}
		return p[0]
	case <-t.Context().Done():
		t.Fatal("no connection served")
	}
	return ""
}

// Without Auth every transport connection, of either profile, is a
// principal of its own, named without its connection id.
func TestUnauthenticatedConnectionsArePrincipals(t *testing.T) {
	got := make(chan [2]string, 4)
	url := startServer(t, NewServer(principals(got), Options{Logger: quiet()}))
	seen := map[string]bool{}
	shape := regexp.MustCompile(`^connection:[0-9a-f]{32}$`)
	for _, p := range []Profile{WebSocket, WebSocket, StreamableHTTP, StreamableHTTP} {
		_, _, c := dialRPC(t, url, DialOptions{Profile: p})
		pr := principalOf(t, got)
		if !shape.MatchString(pr) || strings.Contains(pr, c.ID()) {
			t.Errorf("%s connection %s: principal %q", p, c.ID(), pr)
		}
		if seen[pr] {
			t.Errorf("%s connection %s: principal %q shared with another connection", p, c.ID(), pr)
		}
		seen[pr] = true
	}
}

// Each of BearerToken's tokens is a principal of its own, the same on every
// connection that presents it, named without the token.
func TestBearerTokenPrincipals(t *testing.T) {
	got := make(chan [2]string, 4)
	url := startServer(t, NewServer(principals(got), Options{Auth: BearerToken("alpha-token", "", "beta-token"), Logger: quiet()}))
	of := func(tok string, p Profile) string {
		dialRPC(t, url, DialOptions{Profile: p, Header: bearer(tok)})
		return principalOf(t, got)
	}
	a1, a2 := of("alpha-token", WebSocket), of("alpha-token", StreamableHTTP)
	b := of("beta-token", WebSocket)
	shape := regexp.MustCompile(`^bearer:[0-9a-f]{16}$`)
	for _, p := range []string{a1, b} {
		if !shape.MatchString(p) || strings.Contains(p, "alpha") || strings.Contains(p, "beta") {
			t.Errorf("principal %q", p)
		}
	}
	if a1 != a2 || a1 == b {
		t.Errorf("alpha: %q and %q, beta: %q; want alpha's two equal and beta's another", a1, a2, b)
	}
	for _, h := range []string{"Bearer gamma-token", "Bearer ", "", "alpha-token", "Bearer alpha-tokenx", "bearer alpha-token"} {
		if st, _, _ := rawPost(t, url, initBody, map[string]string{"Authorization": h}); st != http.StatusUnauthorized {
			t.Errorf("Authorization %q: %d, want 401", h, st)
		}
	}
	url = startServer(t, NewServer(serveTest, Options{Auth: BearerToken(""), Logger: quiet()}))
	if st, _, _ := rawPost(t, url, initBody, map[string]string{"Authorization": "Bearer "}); st != http.StatusUnauthorized {
		t.Errorf("BearerToken with no token, empty bearer: %d, want 401", st)
	}
}
