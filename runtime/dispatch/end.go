package dispatch

import (
	"context"
	"io"
	"log/slog"
	"os"
	"sync/atomic"

	"github.com/acpgen/acpgen/runtime/internal/peerlog"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// ExtHandler receives "_"-prefixed extension methods that the schema does
// not describe. A handler that also implements it gets them; otherwise
// requests are answered method-not-found and notifications are dropped.
type ExtHandler interface {
	ExtRequest(ctx context.Context, method string, params wire.Raw) (wire.Raw, error)
	ExtNotification(ctx context.Context, method string, params wire.Raw)
}

// Options configures an End; a generated package's ConnOptions carries them.
type Options struct {
	// RPC configures the JSON-RPC runtime.
	RPC jsonrpc.Options
	// Strict decodes inbound messages without the schema's leniency.
	Strict bool
	// OnDrop is told about inbound notifications that were dropped. Nil
	// logs them with RPC.Logger, or to stderr: the first line, then one
	// count of the repeats per ten seconds.
	OnDrop func(method string, err error)
	// Observer, when set, is told about every request and notification
	// the connection receives or sends (tracing); see Observer.
	Observer Observer
	// Record, when set, is given every request and notification this side
	// sends through its typed methods, after their checks and before the
	// frame is written: the method, the params' sessionId ("" when none)
	// and the params as they will be written (valid only during the call).
	// An error stops the send, which returns it: what a session store
	// could not record never reaches the peer, so a later replay lacks
	// nothing the peer saw (runtime/session.Recorder). Each send waits for
	// its own record; RPC.Recorder (runtime/session.BatchRecorder) keeps
	// the same promise without that wait, recording in batches behind the
	// sends, and is what a store-backed agent should use (see
	// jsonrpc.Options.Recorder and docs/sessions.md).
	Record func(ctx context.Context, method, sessionID string, params []byte) error
}

// End is the runtime's part of a generated connection end: the JSON-RPC
// connection, how received messages are decoded, where refusals are
// logged, and what initialize negotiated.
type End struct {
	// Conn is the JSON-RPC connection, set by Connect.
	Conn    *jsonrpc.Conn
	mode    wire.Mode
	log     *slog.Logger
	onDrop  func(method string, err error)
	ext     ExtHandler
	obs     Observer
	neg     atomic.Value    // *negotiation; see negotiated
	drops   peerlog.Limiter // the default OnDrop's warning
	turns   turnTable       // the side's prompt turns, when its Routes name them
	opening *Opening        // its Routes' Open
	record  func(ctx context.Context, method, sessionID string, params []byte) error
}

// negotiation is what initialize settled, read without a lock: the
// generated package's *Negotiated, and what it granted, which every
// message's gates are checked against.
type negotiation struct {
	n any
	g Grants
}

// Connect sets e up as an end over r (the peer's output) and w (its input):
// inbound messages of routes' methods go to route. ext's ExtHandler, if it
// has one, gets the extension methods.
func Connect(e *End, routes *Routes, route Route, ext any, r io.Reader, w io.Writer, o Options) {
	if o.Strict {
		e.mode = wire.Strict
	}
	e.log = o.RPC.Logger
	if e.log == nil {
		e.log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	e.onDrop = o.OnDrop
	if e.onDrop == nil {
		log := e.log
		e.onDrop = func(method string, err error) {
			// The peer chooses how many it sends: one line, then a count.
			e.drops.Log(log, slog.LevelWarn, "dropped inbound notification", "method", method, "error", err)
		}
	}
	e.ext, _ = ext.(ExtHandler)
	e.obs = o.Observer
	e.record = o.Record
	e.opening = routes.Open
	var h jsonrpc.Handler = &router{e, routes, route}
	if routes.Turn != nil {
		e.turns.methods = routes.Turn
		h = turnRouter{h.(*router)}
	}
	e.Conn = jsonrpc.NewConn(r, w, h, o.RPC)
}

// Mode is how received messages are decoded.
func (e *End) Mode() wire.Mode { return e.mode }

// Negotiated returns what initialize negotiated (the generated package's
// *Negotiated), nil before it completed.
func (e *End) Negotiated() any {
	if n := e.negotiated(); n != nil {
		return n.n
	}
	return nil
}

// SetNegotiated records what initialize negotiated, n, and the capabilities
// it granted, evaluated once (Grant): the connection is ready.
func (e *End) SetNegotiated(n any, g Grants) { e.neg.Store(&negotiation{n, g}) }

// negotiated returns what SetNegotiated recorded, nil before it. End holds
// it in an atomic.Value rather than an atomic.Pointer[negotiation]: a
// generated connection embeds End, and a package whose type holds an
// instance of a generic type compiles that instance's methods itself.
func (e *End) negotiated() *negotiation {
	n, _ := e.neg.Load().(*negotiation)
	return n
}

// outbound checks params this side is about to send: valid, and within
// what the peer advertised (neg nil: not yet negotiated, nothing to check).
// A failure is this side's bug: a *wire.LocalError, logged.
func (e *End) outbound(neg *negotiation, m *Method, params any) error {
	if err := params.(message).Validate(); err != nil {
		return refused(e.log, local(m.Wire, "params", err))
	}
	if err := neg.checkParams(m, params); err != nil {
		return refused(e.log, local(m.Wire, "params", err))
	}
	return nil
}
