package acphttp

import (
	"net/http"
	"time"
)

// DefaultSessionStreamGrace is Options.SessionStreamGrace's default.
const DefaultSessionStreamGrace = 10 * time.Second

// fdLimits are the defaults of the bounds that hold file descriptors,
// derived from one budget (see fdLimitsFor).
type fdLimits struct {
	conns, pending                  int // MaxConnections, MaxPendingConnections
	streams, principal, connStreams int // MaxStreams, MaxPrincipalStreams, MaxConnectionStreams
}

// fdLimitsFor derives the bounds from a file descriptor budget: half of
// the descriptors for event streams; a quarter for connections in use (a
// WebSocket holds one), at most DefaultMaxConnections; an eighth for
// connections not in use yet, at most DefaultMaxPendingConnections; the
// rest for POSTs, idle keep-alive sockets and the agent's own files. Of
// the streams, an eighth for one principal; for one connection fds/64,
// between 8 and 256 (HTTP/2's usual bound on concurrent streams), never
// more than its principal's.
func fdLimitsFor(fds int) fdLimits {
	var l fdLimits
	l.conns = min(max(fds/4, 16), DefaultMaxConnections)
	l.pending = min(max(fds/8, 16), DefaultMaxPendingConnections)
	l.streams = max(fds/2, 16)
	l.principal = max(l.streams/8, 8)
	l.connStreams = min(max(fds/64, 8), 256, l.principal)
	return l
}

func (o *Options) fdDefaults() {
	l := fdLimitsFor(fdBudget())
	if o.MaxConnections <= 0 {
		o.MaxConnections = l.conns
	}
	if o.MaxPendingConnections <= 0 {
		o.MaxPendingConnections = l.pending
	}
	if o.MaxStreams <= 0 {
		o.MaxStreams = l.streams
	}
	if o.MaxPrincipalStreams <= 0 {
		o.MaxPrincipalStreams = min(l.principal, o.MaxStreams)
	}
	if o.MaxConnectionStreams <= 0 {
		o.MaxConnectionStreams = min(l.connStreams, o.MaxPrincipalStreams)
	}
	if o.SessionStreamGrace <= 0 {
		o.SessionStreamGrace = DefaultSessionStreamGrace
	}
}

// streamCount is what the Server counts of open event streams: across the
// server and per principal. Its own mutex, taken under no other lock.
type streamCount struct {
	total       int
	byPrincipal map[string]int
}

// takeStream counts a new event stream of principal: 0, or the status to
// refuse it with (503 past MaxStreams, 429 past MaxPrincipalStreams).
func (s *Server) takeStream(principal string) int {
	s.streamMu.Lock()
	defer s.streamMu.Unlock()
	switch {
	case s.streams.total >= s.o.MaxStreams:
		return http.StatusServiceUnavailable
	case s.streams.byPrincipal[principal] >= s.o.MaxPrincipalStreams:
		return http.StatusTooManyRequests
	}
	s.streams.total++
	s.streams.byPrincipal[principal]++
	return 0
}

func (s *Server) giveStream(principal string) {
	s.streamMu.Lock()
	defer s.streamMu.Unlock()
	s.streams.total--
	if s.streams.byPrincipal[principal]--; s.streams.byPrincipal[principal] <= 0 {
		delete(s.streams.byPrincipal, principal)
	}
}

// refuseStream answers a GET refused by a stream limit. Over HTTP/1 its TCP
// connection is closed with it, so that a flood's refused requests hold no
// descriptor afterwards (over HTTP/2 the connection carries the client's
// other streams, and a GOAWAY would only make it open another).
func refuseStream(w http.ResponseWriter, r *http.Request, status int) {
	if r.ProtoMajor == 1 {
		w.Header().Set("Connection", "close")
	}
	if status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	http.Error(w, http.StatusText(status), status)
}

// Session standing on a connection, for session streams: known sessions'
// streams stay open; a stream of a session not known yet stays open while
// a request naming the session awaits its answer, and ends after
// SessionStreamGrace otherwise.
const (
	sessionKnown = iota
	sessionAwaited
	sessionUnknown
)

// learnLocked records what an agent message tells of its sessions: the
// agent named the session (params.sessionId of its request or
// notification, result.sessionId of its answer), or answered with a result
// a request POSTed with the session's Acp-Session-Id (session/load,
// session/resume). Called with mu held.
func (c *streamConn) learnLocked(p *peek, key string) {
	if p.session != "" {
		c.known[p.session] = struct{}{}
	}
	if p.Method != nil {
		return
	}
	if s, ok := c.named[key]; ok {
		if len(p.env.Result) > 0 {
			c.known[s] = struct{}{}
		}
		delete(c.named, key)
	}
}

// standing reports a session's standing on the connection.
func (c *streamConn) standing(session string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.known[session]; ok {
		return sessionKnown
	}
	for _, s := range c.named {
		if s == session {
			return sessionAwaited
		}
	}
	return sessionUnknown
}
