package acphttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/coder/websocket"
)

// clientKeep bounds what a WebSocket client keeps of the messages it sent,
// to send again those a dropped socket lost: the latest clientKeepMessages,
// within clientKeepBytes (the latest one always).
const (
	clientKeepMessages = 1024
	clientKeepBytes    = 16 << 20
)

// ResumeLost is a ResumeError's Reason when the server took fewer of the
// client's messages than the client still keeps to send again.
const ResumeLost = "client_messages_lost"

// wsClient is the client side of a WebSocket connection. When the server
// numbers its messages (the upgrade gave Acp-Stream-Cursor) and
// DialOptions.ResumeFor is not negative, a socket that drops without a
// close frame is replaced: a new socket sends stream/resume, the server
// replays what followed the last message received, and the client sends
// again what the server did not take. The application sees every message
// once, in order.
type wsClient struct {
	url    string
	o      DialOptions
	id     string
	tag    string // the cursors' tag; "" when the server numbers nothing
	ctx    context.Context
	cancel context.CancelFunc

	rmu sync.Mutex // one resume at a time
	wmu sync.Mutex // held while a message is written, and while a resume sends again

	mu        sync.Mutex
	sock      *wsLink
	gen       uint64   // changes whenever sock does
	socket    uint64   // the server's number of sock
	n         uint64   // the server messages received
	sent      uint64   // the messages sent, initialize included
	kept      [][]byte // the latest sent: numbers sent-len(kept)+1 .. sent
	keptBytes int
	err       error // why the connection ended
}

func dialWS(ctx context.Context, u *url.URL, o DialOptions) (*Conn, error) {
	rawURL := withScheme(u, true)
	ws, resp, err := websocket.Dial(ctx, rawURL, &websocket.DialOptions{HTTPClient: o.HTTPClient, HTTPHeader: o.Header})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			return nil, &HTTPError{Op: "WebSocket upgrade", Status: resp.StatusCode}
		}
		return nil, fmt.Errorf("acphttp: WebSocket dial: %w", err)
	}
	c := &wsClient{url: rawURL, o: o, id: resp.Header.Get(HeaderConnectionID)}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	if cur := resp.Header.Get(HeaderStreamCursor); o.ResumeFor >= 0 && c.id != "" && strings.HasSuffix(cur, ".0") {
		c.tag = strings.TrimSuffix(cur, ".0")
	}
	c.sock = newWSLink(ws, o.MaxMessage, o.StallTimeout, 0, o.Logger)
	return &Conn{l: c, profile: WebSocket, id: c.id}, nil
}

// current returns the socket (nil while it is being replaced) and its
// generation, or why the connection ended.
func (c *wsClient) current() (*wsLink, uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sock, c.gen, c.err
}

func (c *wsClient) read() ([]byte, error) {
	for {
		sock, gen, err := c.current()
		if err != nil {
			return nil, endErr(err)
		}
		if sock == nil {
			if err := c.resume(gen); err != nil {
				return nil, endErr(err)
			}
			continue
		}
		b, err := sock.read()
		c.mu.Lock()
		stale := c.gen != gen
		if err == nil && !stale {
			c.n++
		}
		c.mu.Unlock()
		switch {
		case stale:
			continue // the socket was replaced: the resume replays b
		case err == nil:
			return b, nil
		case c.tag == "" || !socketDropped(err):
			c.end(err)
			return nil, err
		}
		if err := c.resume(gen); err != nil {
			return nil, endErr(err)
		}
	}
}

// endErr is what read returns once the connection ended with err: io.EOF
// for an ordinary close.
func endErr(err error) error {
	if errors.Is(err, errConnClosed) {
		return io.EOF
	}
	return err
}

func (c *wsClient) write(msg []byte) error {
	for {
		sock, gen, err := c.current()
		if err != nil {
			return err
		}
		if sock == nil {
			if err := c.resume(gen); err != nil {
				return err
			}
			continue
		}
		c.wmu.Lock()
		c.mu.Lock()
		if c.gen != gen {
			c.mu.Unlock()
			c.wmu.Unlock()
			continue
		}
		if c.tag != "" {
			c.keepLocked(msg)
		}
		c.mu.Unlock()
		err = sock.write(msg)
		c.wmu.Unlock()
		if err == nil || c.tag == "" {
			return err
		}
		// The resume sends msg again if the server did not take it.
		return c.resume(gen)
	}
}

// keepLocked records a message sent. Called with mu held.
func (c *wsClient) keepLocked(msg []byte) {
	c.sent++
	c.kept = append(c.kept, append([]byte(nil), msg...))
	c.keptBytes += len(msg)
	for len(c.kept) > 1 && (len(c.kept) > clientKeepMessages || c.keptBytes > clientKeepBytes) {
		c.keptBytes -= len(c.kept[0])
		c.kept[0] = nil
		c.kept = c.kept[1:]
	}
}

// resume replaces the socket of generation gen (unless that is done
// already), trying with backoff and jitter for ResumeFor; it ends the
// connection with a *ResumeError if the server refuses or does not answer.
func (c *wsClient) resume(gen uint64) error {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	c.mu.Lock()
	if c.err != nil || c.gen != gen {
		err := c.err
		c.mu.Unlock()
		return err
	}
	old := c.sock
	c.sock = nil
	c.gen++
	r := resumeRequest{ConnectionID: c.id, Cursor: formatCursor(c.tag, c.n), Socket: c.socket}
	c.mu.Unlock()
	if old != nil {
		old.drop()
	}
	c.o.Logger.Debug("acphttp: resuming WebSocket connection", "connection", c.id, "cursor", r.Cursor)
	deadline := time.Now().Add(c.o.ResumeFor)
	wait := resumeBackoffMin
	for {
		err := c.attempt(r)
		if err == nil {
			return nil
		}
		var re *ResumeError
		var he *HTTPError
		switch {
		case c.ctx.Err() != nil:
			return errConnClosed
		case errors.As(err, &re):
			c.end(re)
			return re
		case errors.Is(err, syscall.ECONNREFUSED):
			// Nothing listens: the process that held the connection is
			// gone, and with it the connection.
			re := &ResumeError{ws: true, Cursor: r.Cursor, Err: err}
			c.end(re)
			return re
		case errors.As(err, &he) && (he.Status == http.StatusUnauthorized || he.Status == http.StatusForbidden):
			c.end(err)
			return err
		}
		d := wait/2 + rand.N(wait/2+1)
		if time.Now().Add(d).After(deadline) {
			re := &ResumeError{ws: true, Cursor: r.Cursor, Err: err}
			c.end(re)
			return re
		}
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-c.ctx.Done():
			t.Stop()
			return errConnClosed
		}
		wait = min(wait*2, resumeBackoffMax)
	}
}

// attempt opens a socket, asks it to resume r and, once the server has
// replied stream/resumed, sends again what it did not take and installs
// the socket. A *ResumeError is a refusal.
func (c *wsClient) attempt(r resumeRequest) error {
	ctx, cancel := context.WithTimeout(c.ctx, c.o.StallTimeout)
	defer cancel()
	h := c.o.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set(HeaderConnectionID, c.id) // for a balancer's affinity
	ws, resp, err := websocket.Dial(ctx, c.url, &websocket.DialOptions{HTTPClient: c.o.HTTPClient, HTTPHeader: h})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			return &HTTPError{Op: "WebSocket upgrade", Status: resp.StatusCode}
		}
		return err
	}
	l := newWSLink(ws, c.o.MaxMessage, c.o.StallTimeout, 0, c.o.Logger)
	stop := context.AfterFunc(ctx, l.drop) // the answer must come within StallTimeout
	frame, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": methodStreamResume, "params": r})
	var b []byte
	if err = l.write(frame); err == nil {
		b, err = l.read()
	}
	if !stop() || err != nil {
		l.drop()
		if err == nil {
			err = context.DeadlineExceeded
		}
		return err
	}
	var m struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	json.Unmarshal(b, &m)
	switch m.Method {
	case methodStreamResumed:
	case methodStreamResumeFailed:
		var f struct {
			Reason string `json:"reason"`
		}
		json.Unmarshal(m.Params, &f)
		l.close()
		return &ResumeError{ws: true, Cursor: r.Cursor, Reason: f.Reason, Err: errors.New(string(b))}
	default:
		l.drop()
		return fmt.Errorf("acphttp: the server answered stream/resume with %.200s", b)
	}
	var ack resumedParams
	json.Unmarshal(m.Params, &ack)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.mu.Lock()
	first := c.sent - uint64(len(c.kept)) + 1
	if ack.Received > c.sent || ack.Received+1 < first {
		c.mu.Unlock()
		l.drop()
		return &ResumeError{ws: true, Cursor: r.Cursor, Reason: ResumeLost, Err: fmt.Errorf("acphttp: the server took %d of the %d messages sent", ack.Received, c.sent)}
	}
	again := append([][]byte(nil), c.kept[ack.Received+1-first:]...)
	c.mu.Unlock()
	for _, msg := range again {
		if err := l.write(msg); err != nil {
			l.drop()
			return err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		l.drop()
		return errConnClosed
	}
	c.sock, c.socket = l, ack.Socket
	c.gen++
	return nil
}

// end ends the connection with err, unless it ended already.
func (c *wsClient) end(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	sock := c.sock
	c.sock = nil
	c.gen++
	c.mu.Unlock()
	c.cancel()
	if sock != nil {
		sock.drop()
	}
}

// close ends the connection with 1000; it is never resumed.
func (c *wsClient) close() error {
	return c.closeWith(func(l *wsLink) error { return l.close() })
}

// fail ends the connection with 1011 and reason.
func (c *wsClient) fail(reason string) error {
	return c.closeWith(func(l *wsLink) error { return l.fail(reason) })
}

func (c *wsClient) closeWith(close func(*wsLink) error) error {
	c.mu.Lock()
	if c.err == nil {
		c.err = errConnClosed
	}
	sock := c.sock
	c.sock = nil
	c.gen++
	c.mu.Unlock()
	c.cancel()
	if sock == nil {
		return nil
	}
	return close(sock)
}
