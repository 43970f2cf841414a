package storeagent_test

import (
	"errors"
	"log/slog"
	"slices"
	"testing"

	"github.com/acpgen/acpgen/examples/storeagent"
	"github.com/acpgen/acpgen/gen/acp"
	acp2 "github.com/acpgen/acpgen/gen/acp/v2/unstable"
	"github.com/acpgen/acpgen/runtime/session"
)

// v1 session/list hands its filters to the store: cwd exact,
// additionalDirectories exact and in order; the listing carries each
// session's roots; a cursor the store did not make is -32602.
func TestListFilters(t *testing.T) {
	a := storeagent.New(session.NewMemory(), slog.New(slog.DiscardHandler))
	c, _ := connect(t, a)
	mk := func(cwd string, dirs ...string) acp.SessionID {
		s, err := c.conn.SessionNew(ctx, &acp.NewSessionRequest{Cwd: cwd, AdditionalDirectories: dirs, MCPServers: []acp.MCPServer{}})
		if err != nil {
			t.Fatal(err)
		}
		return s.SessionID
	}
	plain, rooted, swapped, other := mk("/a"), mk("/a", "/x", "/y"), mk("/a", "/y", "/x"), mk("/b")
	list := func(q *acp.ListSessionsRequest) []acp.SessionID {
		t.Helper()
		l, err := c.conn.SessionList(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var ids []acp.SessionID
		for _, s := range l.Sessions {
			ids = append(ids, s.SessionID)
			if s.SessionID == rooted && !slices.Equal(s.AdditionalDirectories, []string{"/x", "/y"}) {
				t.Errorf("listed %s with roots %q", s.SessionID, s.AdditionalDirectories)
			}
		}
		slices.Sort(ids)
		return ids
	}
	sorted := func(ids ...acp.SessionID) []acp.SessionID { slices.Sort(ids); return ids }
	for _, tc := range []struct {
		name string
		q    acp.ListSessionsRequest
		want []acp.SessionID
	}{
		{"no filter", acp.ListSessionsRequest{}, sorted(plain, rooted, swapped, other)},
		{"cwd /a", acp.ListSessionsRequest{Cwd: new("/a")}, sorted(plain, rooted, swapped)},
		{"cwd /b", acp.ListSessionsRequest{Cwd: new("/b")}, sorted(other)},
		{"roots /x /y", acp.ListSessionsRequest{AdditionalDirectories: []string{"/x", "/y"}}, sorted(rooted)},
		{"cwd /b, roots /x /y", acp.ListSessionsRequest{Cwd: new("/b"), AdditionalDirectories: []string{"/x", "/y"}}, nil},
	} {
		if got := list(&tc.q); !slices.Equal(got, tc.want) {
			t.Errorf("%s: listed %q, want %q", tc.name, got, tc.want)
		}
	}
	var re *acp.RPCError
	if _, err := c.conn.SessionList(ctx, &acp.ListSessionsRequest{Cursor: new("not-a-cursor")}); !errors.As(err, &re) || re.Code != -32602 {
		t.Errorf("a made-up cursor: %v, want -32602", err)
	}
}

// v2 session/list pages through the store with the cwd filter; a cursor
// the store did not make is -32602.
func TestV2ListPagesAndFilters(t *testing.T) {
	a := storeagent.New(session.NewMemory(), slog.New(slog.DiscardHandler))
	c, _ := connectV2(t, a)
	want := map[acp2.SessionID]bool{}
	for range session.DefaultPageSize + 5 {
		want[newSessionV2(t, c)] = true
	}
	elsewhere, err := c.conn.SessionNew(ctx, &acp2.NewSessionRequest{Cwd: "/elsewhere"})
	if err != nil {
		t.Fatal(err)
	}
	var cursor *acp2.SessionListCursor
	pages := 0
	work := acp2.AbsolutePath("/work")
	for {
		l, err := c.conn.SessionList(ctx, &acp2.ListSessionsRequest{Cwd: &work, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, s := range l.Sessions {
			if !want[s.SessionID] || s.UpdatedAt == nil || s.Cwd != work {
				t.Fatalf("listed %+v", s)
			}
			delete(want, s.SessionID)
		}
		if cursor = l.NextCursor; cursor == nil {
			break
		}
	}
	if len(want) != 0 || pages != 2 {
		t.Errorf("%d sessions not listed, %d pages", len(want), pages)
	}
	if l, err := c.conn.SessionList(ctx, &acp2.ListSessionsRequest{Cwd: new(acp2.AbsolutePath("/elsewhere"))}); err != nil || len(l.Sessions) != 1 || l.Sessions[0].SessionID != elsewhere.SessionID {
		t.Errorf("cwd /elsewhere: %+v, %v", l, err)
	}
	var re *acp2.RPCError
	if _, err := c.conn.SessionList(ctx, &acp2.ListSessionsRequest{Cursor: new(acp2.SessionListCursor("not-a-cursor"))}); !errors.As(err, &re) || re.Code != -32602 {
		t.Errorf("a made-up cursor: %v, want -32602", err)
	}
}

// Roots are never carried over: the additionalDirectories a session/load
// or session/resume gives replace the stored ones (none given: none kept),
// as session/list then shows.
func TestLoadAndResumeReplaceRoots(t *testing.T) {
	a := storeagent.New(session.NewMemory(), slog.New(slog.DiscardHandler))
	c, _ := connect(t, a)
	s, err := c.conn.SessionNew(ctx, &acp.NewSessionRequest{Cwd: "/a", AdditionalDirectories: []string{"/x"}, MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatal(err)
	}
	roots := func() (string, []string) {
		t.Helper()
		l, err := c.conn.SessionList(ctx, &acp.ListSessionsRequest{})
		if err != nil || len(l.Sessions) != 1 {
			t.Fatalf("list: %+v, %v", l, err)
		}
		return l.Sessions[0].Cwd, l.Sessions[0].AdditionalDirectories
	}
	if cwd, dirs := roots(); cwd != "/a" || !slices.Equal(dirs, []string{"/x"}) {
		t.Fatalf("after session/new: %s %q", cwd, dirs)
	}
	if _, err := c.conn.SessionLoad(ctx, &acp.LoadSessionRequest{SessionID: s.SessionID, Cwd: "/b", AdditionalDirectories: []string{"/y", "/z"}, MCPServers: []acp.MCPServer{}}); err != nil {
		t.Fatal(err)
	}
	if cwd, dirs := roots(); cwd != "/b" || !slices.Equal(dirs, []string{"/y", "/z"}) {
		t.Errorf("after session/load with /y /z: %s %q", cwd, dirs)
	}
	if _, err := c.conn.SessionResume(ctx, &acp.ResumeSessionRequest{SessionID: s.SessionID, Cwd: "/b"}); err != nil {
		t.Fatal(err)
	}
	if cwd, dirs := roots(); cwd != "/b" || len(dirs) != 0 {
		t.Errorf("after session/resume without roots: %s %q, want none", cwd, dirs)
	}
}
