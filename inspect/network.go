package inspect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acpgen/acpgen/runtime/acphttp"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// NetOptions configure an inspection over the network: clients connect to
// Listen, and each connection is relayed to the agent at Connect.
type NetOptions struct {
	// Listen is the TCP address served (host:port; port 0 picks one).
	Listen string
	// Connect is the agent's endpoint URL (ws, wss, http or https).
	Connect  string
	Profiles *Profiles
	// Stderr gets one line per finding.
	Stderr io.Writer
	// Trace, when set, gets one JSON record per message (see Record).
	Trace io.Writer
	// Server configures the listening side. Its zero value keeps
	// acphttp's defaults: loopback Host names only, and no listen address
	// other than loopback unless Auth or AllowUnauthenticated is set.
	Server acphttp.Options
	// Dial configures each connection to the agent.
	Dial acphttp.DialOptions
	// Listening, when set, is called with the bound address before any
	// client is served.
	Listening func(net.Addr)
	// DrainTimeout is how long the connections get, once ctx has ended,
	// to finish what is in flight (see ServeNetwork). Default
	// acphttp.DefaultDrainTimeout.
	DrainTimeout time.Duration
}

// ServeNetwork serves Listen until ctx ends. Each client connection gets a
// connection of its own to Connect and a checker of its own; every message
// is judged, then passed on whole with its bytes unchanged, both ways.
// Closing either side closes the other. The trace names each message's
// connection by the order it was accepted in (1, 2, ...).
//
// When ctx ends, the connections drain, as a server of runtime/acphttp
// does: a request a client sends from then on is answered with the
// JSON-RPC error -32001 "Server shutting down" by the inspector (it
// reaches neither the agent nor the trace), while the client's requests
// already passed on (and v2 turns still running) get their answers
// through; each connection closes once nothing of it is outstanding. What
// still runs after DrainTimeout is closed as acphttp's Shutdown closes it.
// A connection opened after ctx ended is closed at once. ServeNetwork
// returns once every connection has closed.
func ServeNetwork(ctx context.Context, o NetOptions) (*Result, error) {
	if o.Listen == "" || o.Connect == "" {
		return nil, errors.New("network inspection needs both an address to listen on and an agent URL to connect to")
	}
	if o.DrainTimeout <= 0 {
		o.DrainTimeout = acphttp.DefaultDrainTimeout
	}
	s := newSink(o.Stderr, o.Trace)
	var n atomic.Int64
	g := newGate()
	srv := acphttp.NewServer(func(ctx context.Context, down *acphttp.Conn) error {
		if !g.enter() {
			return nil // opened after the stop
		}
		defer g.leave()
		st := stream{sink: s, checker: NewChecker(o.Profiles), conn: strconv.FormatInt(n.Add(1), 10)}
		return relayConn(ctx, st, down, o.Connect, o.Dial, g.draining)
	}, o.Server)
	// The server itself stops once the connections have drained.
	serveCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	served := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			g.drain(o.DrainTimeout)
			stop()
		case <-served:
		}
	}()
	err := acphttp.ListenAndServe(serveCtx, o.Listen, srv, acphttp.ServeOptions{Listening: o.Listening})
	close(served)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil && s.err != nil {
		err = fmt.Errorf("writing the trace: %w", s.err)
	}
	if err != nil {
		return nil, err
	}
	return &Result{Findings: s.findings, Connections: int(n.Load())}, nil
}

// gate counts the relayed connections and starts their drain.
type gate struct {
	mu       sync.Mutex
	closed   bool
	running  sync.WaitGroup
	draining chan struct{} // closed when the drain starts
}

func newGate() *gate { return &gate{draining: make(chan struct{})} }

// enter admits a connection; false once the drain has started.
func (g *gate) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.closed {
		g.running.Add(1)
	}
	return !g.closed
}

func (g *gate) leave() { g.running.Done() }

// drain starts the drain and waits for the connections to close, at most
// timeout.
func (g *gate) drain(timeout time.Duration) {
	g.mu.Lock()
	g.closed = true
	close(g.draining)
	g.mu.Unlock()
	done := make(chan struct{})
	go func() { g.running.Wait(); close(done) }()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// relayed is one client connection and its connection to the agent.
type relayed struct {
	st       stream
	down, up *acphttp.Conn
	// toAgent is held while a client message is checked against the drain
	// and judged; toClient while an agent message is judged and passed
	// on: a drain's check takes both (in that order), so it never sees a
	// request judged but not counted, or an answer counted but not
	// delivered.
	toAgent, toClient sync.Mutex
	draining          bool          // guarded by toAgent
	downMu            sync.Mutex    // one write at a time to the client
	progress          chan struct{} // an agent message was passed on
}

// relayConn dials the agent for one client connection and relays messages
// both ways until either side ends, ctx does, or a drain (started by
// closing drain) has nothing left to wait for.
func relayConn(ctx context.Context, st stream, down *acphttp.Conn, url string, o acphttp.DialOptions, drain <-chan struct{}) error {
	up, err := acphttp.Dial(ctx, url, o)
	if err != nil {
		return fmt.Errorf("connecting to the agent: %w", err)
	}
	r := &relayed{st: st, down: down, up: up, progress: make(chan struct{}, 1)}
	type end struct {
		agent bool // the agent's side ended
		err   error
	}
	done := make(chan end, 2)
	go func() { done <- end{false, r.clientMessages()} }()
	go func() { done <- end{true, r.agentMessages()} }()
	ended, agentEnded := 0, false
wait:
	for {
		select {
		case e := <-done:
			err, agentEnded = e.err, e.agent
			ended++
			break wait
		case <-ctx.Done():
			break wait
		case <-drain:
			drain = nil
			if r.drained(true) {
				break wait
			}
		case <-r.progress:
			if r.drained(false) {
				break wait
			}
		}
	}
	// One side ended: end the other, so that its relay returns too. The
	// agent's end reaches the client as a failure (WebSocket 1011), not as
	// an ordinary close.
	if agentEnded && ctx.Err() == nil {
		down.Fail("the agent's connection ended")
	}
	down.Close()
	up.Close()
	for ; ended < 2; ended++ {
		<-done
	}
	return err
}

// drained reports whether the connection drains (starting the drain when
// start is set) and nothing of it is outstanding: no request of the client
// unanswered, no v2 turn running.
func (r *relayed) drained(start bool) bool {
	r.toAgent.Lock()
	defer r.toAgent.Unlock()
	r.draining = r.draining || start
	if !r.draining {
		return false
	}
	r.toClient.Lock()
	defer r.toClient.Unlock()
	return !r.st.checker.busy()
}

// clientMessages judges each message of the client, then passes it on to
// the agent; while draining, it answers requests itself. It returns nil at
// the client's end.
func (r *relayed) clientMessages() error {
	for {
		msg, err := r.down.ReadMessage()
		if err != nil {
			return endOf(err)
		}
		r.toAgent.Lock()
		if r.draining {
			if id, ok := requestID(msg); ok {
				r.toAgent.Unlock()
				if err := r.writeDown(refusal(id)); err != nil {
					return err
				}
				continue
			}
		}
		r.st.observe(ToAgent, msg[:min(len(msg), maxJudged)], len(msg))
		r.toAgent.Unlock()
		if err := r.up.WriteMessage(msg); err != nil {
			return err
		}
	}
}

// agentMessages judges each message of the agent, then passes it on to
// the client. It returns nil at the agent's end.
func (r *relayed) agentMessages() error {
	for {
		msg, err := r.up.ReadMessage()
		if err != nil {
			return endOf(err)
		}
		r.toClient.Lock()
		r.st.observe(ToClient, msg[:min(len(msg), maxJudged)], len(msg))
		err = r.writeDown(msg)
		r.toClient.Unlock()
		if err != nil {
			return err
		}
		select {
		case r.progress <- struct{}{}:
		default:
		}
	}
}

func (r *relayed) writeDown(msg []byte) error {
	r.downMu.Lock()
	defer r.downMu.Unlock()
	return r.down.WriteMessage(msg)
}

func endOf(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// requestID returns the id of a message that is a request (not a batch).
func requestID(msg []byte) (json.RawMessage, bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
	}
	if json.Unmarshal(msg, &m) != nil || m.ID == nil || m.Method == nil {
		return nil, false
	}
	return m.ID, true
}

// refusal answers a request read while draining, as a draining jsonrpc
// connection does.
func refusal(id json.RawMessage) []byte {
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   wire.RPCError   `json:"error"`
	}{"2.0", id, wire.RPCError{Code: jsonrpc.CodeOverloaded, Message: "Server shutting down: request not handled; retry on a new connection"}})
	return b
}

// busy reports whether a request of the client awaits its answer or a v2
// turn runs: what a drain waits for.
func (c *Checker) busy() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending[ToAgent].len() > 0 {
		return true
	}
	for _, s := range c.sessions.m {
		if s.v.running {
			return true
		}
	}
	return false
}
