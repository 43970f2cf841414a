package acphttp

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"
)

// DefaultResumeFor is DialOptions.ResumeFor's default.
const DefaultResumeFor = 30 * time.Second

// Backoff between attempts to resume a dropped event stream: the first
// waits up to resumeBackoffMin, each later one up to twice as long, at most
// resumeBackoffMax; each wait is drawn at random from its upper half.
const (
	resumeBackoffMin = 50 * time.Millisecond
	resumeBackoffMax = 2 * time.Second
)

// dedupWindow is how many of a stream's latest cursors the client
// remembers to drop messages a resume delivers twice.
const dedupWindow = 4096

// errEventSize ends an event stream whose event or line is too long: not
// a drop, so it is not resumed.
var errEventSize = errors.New("acphttp: event too large")

// ResumeError is an event stream that dropped and could not be resumed:
// the server refused its cursor (409 Conflict; Reason is the answer's
// reason, such as ResumeExpired, and Err the *HTTPError), or did not take
// it back within DialOptions.ResumeFor (Reason "", Err the last failure).
// Messages may have been lost. On the connection's stream it ends the
// connection (ReadMessage returns it); on a session's stream, the session's
// requests are answered with -32603 (data {status, body}) until session/load
// or session/resume reattaches it. Either way the application falls back:
// session/load or session/resume, on a new Dial if the connection ended.
type ResumeError struct {
	Session string // "" for the connection's stream
	Cursor  string // the last cursor received
	Reason  string
	Err     error
	ws      bool // a WebSocket connection's resume
}

func (e *ResumeError) Error() string {
	what := "the connection's event stream"
	if e.ws {
		what = "the WebSocket connection"
	} else if e.Session != "" {
		what = fmt.Sprintf("the event stream of session %q", e.Session)
	}
	if e.Reason != "" {
		return fmt.Sprintf("acphttp: resuming %s from %s refused: %s", what, e.Cursor, e.Reason)
	}
	return fmt.Sprintf("acphttp: resuming %s from %s failed: %v", what, e.Cursor, e.Err)
}

func (e *ResumeError) Unwrap() error { return e.Err }

// position is what the client knows of one stream: its last cursor and the
// latest ones seen, to drop a message delivered twice.
type position struct {
	last  string
	seen  map[string]struct{}
	order []string
}

// startPosition records where a freshly opened stream starts (the server's
// Acp-Stream-Cursor; "" when the server numbers nothing).
func (l *httpLink) startPosition(session, cursor string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.positions[session] = &position{last: cursor, seen: map[string]struct{}{}}
}

// advance records a received message's cursor and reports whether the
// message is new (a message without one always is).
func (l *httpLink) advance(session, cursor string) bool {
	if cursor == "" {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.positions[session]
	if p == nil {
		p = &position{seen: map[string]struct{}{}}
		l.positions[session] = p
	}
	if _, dup := p.seen[cursor]; dup {
		return false
	}
	if len(p.order) >= dedupWindow {
		delete(p.seen, p.order[0])
		p.order = p.order[1:]
	}
	p.seen[cursor] = struct{}{}
	p.order = append(p.order, cursor)
	p.last = cursor
	return true
}

// resumable reports whether a stream that ended with err is to be resumed:
// it dropped (a read error, not the server's end of it nor a refusal), the
// link is open, its session was not closed, and the server gave it a cursor.
func (l *httpLink) resumable(session string, err error) bool {
	var he *HTTPError
	var re *ResumeError
	if err == nil || l.resumeFor < 0 || l.ctx.Err() != nil || errors.As(err, &he) || errors.As(err, &re) || errors.Is(err, errEventSize) {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.positions[session]
	return p != nil && p.last != "" && !l.closing[session]
}

// resume GETs the stream again from its last cursor, with backoff and
// jitter, until the server takes it back (200), refuses the cursor (409
// with a reason other than stream_in_use, which only says the server has
// not yet seen the dropped GET end), answers that the connection is gone,
// or ResumeFor passes.
func (l *httpLink) resume(session string, cause error) (*http.Response, error) {
	l.mu.Lock()
	cursor := l.positions[session].last
	l.mu.Unlock()
	l.log.Debug("acphttp: resuming event stream", "session", session, "cursor", cursor, "cause", cause)
	deadline := time.Now().Add(l.resumeFor)
	wait := resumeBackoffMin
	last := cause
	for {
		resp, err := l.getStream(session, cursor)
		if err == nil {
			return resp, nil
		}
		var he *HTTPError
		if errors.As(err, &he) {
			if he.Status == http.StatusConflict {
				if reason := conflictReason(he.Body); reason != ResumeInUse {
					return nil, &ResumeError{Session: session, Cursor: cursor, Reason: reason, Err: he}
				}
			} else if connectionFailure(he.Status) {
				return nil, err
			}
		}
		if l.ctx.Err() != nil {
			return nil, errConnClosed
		}
		last = err
		d := wait/2 + rand.N(wait/2+1)
		if time.Now().Add(d).After(deadline) {
			return nil, &ResumeError{Session: session, Cursor: cursor, Err: last}
		}
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-l.ctx.Done():
			t.Stop()
			return nil, errConnClosed
		}
		wait = min(wait*2, resumeBackoffMax)
	}
}

// conflictReason reads the reason of a 409 answer's JSON body; a 409
// without one is the server's plain "the stream has a receiver".
func conflictReason(body string) string {
	var v struct {
		Reason string `json:"reason"`
	}
	if json.Unmarshal([]byte(body), &v) != nil || v.Reason == "" {
		return ResumeInUse
	}
	return v.Reason
}
