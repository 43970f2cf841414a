package acphttp

import (
	"context"
	"errors"
	"time"
)

// Close closes every connection at once: WebSockets with 1001 going away,
// event streams ended, requests in flight unanswered. New connections are
// refused with 503. It does not wait for the ServeFuncs; Shutdown does.
func (s *Server) Close() error {
	for _, sc := range s.stopAccepting() {
		sc.kill()
		sc.cancel()
	}
	return nil
}

var errServerClosed = errors.New("acphttp: server closed")

// ShutdownCancelWait is how long Shutdown waits, once its context has ended
// and the requests still running have been cancelled, for their answers to
// be written and the connections to close, before it closes what remains as
// Close does.
const ShutdownCancelWait = 5 * time.Second

// Shutdown drains the server: new connections are refused with 503; on each
// open connection a request read from then on is answered with the JSON-RPC
// error -32001 "Server shutting down" (jsonrpc.CodeOverloaded; its handler
// does not run), while notifications and answers to the agent's requests
// are still taken, so turns in progress can finish. A connection closes
// (a WebSocket with 1001 going away; an event stream once it has delivered
// what it holds) as soon as its requests have been answered. When ctx ends
// first, the requests still running are cancelled (an ACP prompt turn of a
// generated AgentConn answers stopReason "cancelled", another request an
// error), their answers are written, and the connections close; after
// ShutdownCancelWait more, whatever remains is closed as Close does.
//
// Draining works through the jsonrpc.Drain that every ServeFunc's context
// carries (see jsonrpc.WithDrain): a ServeFunc that runs a jsonrpc.Conn (or
// a generated connection, or a router that starts one) with that context
// drains; a connection on which no Conn runs yet (a router still waiting
// for initialize) is closed at once.
//
// Shutdown returns nil once every ServeFunc has returned, or ctx.Err() when
// ctx ended before. Call it before http.Server's Shutdown, which neither
// closes hijacked WebSockets nor waits for them.
func (s *Server) Shutdown(ctx context.Context) error {
	for _, sc := range s.stopAccepting() {
		if sc.away != nil {
			sc.away()
		}
		if !sc.drain.Start(ctx) {
			sc.kill()
			sc.cancel()
		}
	}
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	t := time.NewTimer(ShutdownCancelWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		s.Close()
	}
	return ctx.Err()
}

// stopAccepting makes new connections be refused and returns the open ones.
func (s *Server) stopAccepting() []*serverConn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.shutdown)
	}
	conns := make([]*serverConn, 0, len(s.conns))
	for _, sc := range s.conns {
		conns = append(conns, sc)
	}
	return conns
}
