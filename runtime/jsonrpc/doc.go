// Package jsonrpc is the JSON-RPC 2.0 connection that acpgen-generated SDKs
// run the Agent Client Protocol on: one JSON message per line over a byte
// stream, normally a process's stdin and stdout.
//
// A [Conn] reads frames from an io.Reader, hands inbound requests and
// notifications to a [Handler] (the generated dispatcher), correlates
// responses to its own [Conn.Call]s, and writes frames to an io.Writer.
// A transport that frames messages itself (a WebSocket, an HTTP stream)
// implements [MessageReader] and [MessageWriter] and is passed as both: the
// Conn then reads and writes whole messages instead of lines.
//
// # Concurrency model
//
//   - One goroutine at a time holds the reading role: it reads and classifies
//     frames in order. Responses to outbound calls and "$/cancel_request"
//     notifications keep flowing while handlers run (a handler may itself
//     Call the peer and wait for the answer). The reader waits for handlers
//     only to stay within the bounds, and only when that cannot deadlock (see
//     "Flow control").
//   - Inbound requests run concurrently, each on a goroutine of its own
//     (or inline, below). At most
//     Options.MaxConcurrent run at once; the others wait for a slot (they can
//     still be cancelled while waiting). Requests complete and are answered in
//     any order.
//   - A request runs inline, on the reading goroutine, which then writes its
//     answer and reads on (no hand-off to another goroutine and back), when
//     the next frame has not arrived yet (a peer pipelining requests has its
//     requests run beside the reader instead; a MessageReader cannot tell,
//     and counts as not arrived), a slot is free, and the reader
//     could pause anyway (no Call of ours waits for an answer, no
//     [Conn.AwaitingInput] mark is open). Reading passes to a new goroutine as
//     soon as anything makes a Call, or once the request has run (answer
//     included) for 0.2 to 0.4 ms (timer precision permitting): so a
//     "$/cancel_request", a session/cancel or a later request reaches a
//     handler that waits for it after about that delay.
//   - Inbound notifications run one at a time, in arrival order, on a single
//     goroutine of their own (started with the first notification, so an
//     idle connection runs only Run's goroutine and the reader's),
//     independently of requests: a session/cancel is
//     delivered while the session/prompt request it cancels is still running.
//     A slow notification handler delays later notifications, and the reader
//     only once the queued ones fill Options.MaxBuffered.
//   - There is no ordering between a request and the notifications around
//     it: a notification that arrives after a request may be handled before
//     the request's handler starts, or after it returns.
//   - "$/cancel_request" notifications are consumed by the runtime (never
//     passed to the Handler): they cancel the context of the inbound request
//     with that id. A request whose context was cancelled (by the peer or by
//     shutdown) and whose handler returns any error is answered -32800. A
//     request's context also ends as the request is answered. It costs no
//     allocation of its own: it becomes a context.WithCancelCause child of
//     the connection's only when something waits on its Done.
//   - A [Dispatcher] (the generated dispatcher) decodes a message's params in
//     the pass that reads the frame, when the method comes before them, so
//     the params are scanned once; and it encodes a request's result straight
//     into the response frame, which is not checked again.
//   - A response to one of our calls never overtakes the notifications read
//     before it: while earlier notifications are queued or running, the
//     response is queued behind them, so Call returns after their handlers.
//     (ACP: a turn's session/update notifications are handled before its
//     session/prompt call returns.) A Call made from inside a notification
//     handler, with the context the handler was given, is answered at once;
//     holding it back would deadlock.
//   - Writes are serialized: every frame (request, notification, response) is
//     written whole with a single Write, one per line, in the order the
//     writes are issued. Notify and Call return only after their frame is
//     written, so notifications a handler sends before returning are on the
//     wire before its response (ACP needs every session/update of a turn
//     before the turn's session/prompt response). A writer that blocks (a
//     peer that stops reading) blocks every writer.
//
// # Errors answered by the runtime
//
//   - A line that is not JSON: -32700 parse error, id null.
//   - A value that is not an object or an array, or a malformed
//     envelope ("jsonrpc" not "2.0", method not a string, id not a string,
//     number or null, params not an object or array, a request carrying
//     result or error, a response without exactly one of result and error or
//     with a malformed error object): -32600 invalid request. The id is
//     echoed when the message is a request whose id is readable; otherwise
//     it is null (an invalid response is never answered with its own id, which
//     the peer would take for the answer to one of its requests).
//   - A line longer than Options.MaxFrame: -32600 with id null; the line is
//     skipped without being buffered whole and reading goes on.
//   - An empty batch "[]", or a batch with more entries to answer than
//     Options.MaxInFlight: one -32600 with id null (see "Batches").
//   - A request past the bounds when pausing could deadlock: [CodeOverloaded]
//     (see "Flow control"); its handler does not run.
//   - A handler panic: -32603, logged with its stack.
//
// The reader writes these answers itself: while the peer does not read, it
// waits for the writer.
//
// Unknown methods are the Handler's business (the dispatcher answers
// -32601). A response whose id matches no outbound call is logged and
// ignored. Empty lines are ignored and a line may end in "\r\n".
//
// # Batches
//
// A frame holding a JSON array is a JSON-RPC 2.0 batch (§6), and a Conn
// always handles it as that section says, with no option to turn it off:
// JSON-RPC 2.0 defines batches, ACP v2's transports text adopts its batch
// rules, and ACP v1, silent on them, gives a v1 peer no reason to send one,
// so handling them costs a v1 peer nothing and answers a batch with what its
// sender waits for (a refusal would leave its requests unanswered).
//
//   - Each entry is handled as a frame of its own would be (a copy of it,
//     counted against the bounds as one), in order: a request like a single
//     one (handlers run concurrently, never inline), a notification queued
//     behind the ones before it, "$/cancel_request" (which also cancels a
//     request earlier in the same batch), a response delivered to its Call.
//   - The answers (a response to each request, and a -32600 error for each
//     invalid entry, with the id echoed as for a single frame) are written
//     together as one array line once the last request is answered, in the
//     order they came. A batch of notifications and responses only gets no
//     reply. Notifications that handlers send before returning are written
//     before the array.
//   - A frame that is not JSON is one -32700 error, an empty array one
//     -32600 error (id null, not an array); either way no entry is handled.
//   - The batch's requests are admitted together: they count as that many
//     requests in flight, and their entries against Options.MaxBuffered,
//     from the read until the array is written; each answer collected
//     counts too, by its length, until then. Admitting some while the
//     others waited for room could wait forever, since none is answered
//     before all are. A batch that does not fit waits for room or, when
//     pausing could deadlock (see "Flow control"), has each of its requests
//     answered CodeOverloaded in its array, their handlers not run; its
//     notifications and responses are handled either way. A batch with more
//     requests and invalid entries than Options.MaxInFlight could never fit:
//     it is refused whole with one -32600 error, id null, and none of its
//     entries is handled.
//   - As no answer leaves before the last, a slow request holds its batch's
//     answers: an ACP prompt turn sent in a batch delays the answers to its
//     siblings until the turn ends.
//
// # Flow control
//
// A Conn holds a bounded amount of what the peer sends, whatever the peer
// does:
//
//   - Options.MaxInFlight (default [DefaultMaxInFlight]) bounds the inbound
//     requests read and not yet answered: waiting for a slot, running, or
//     waiting for the writer to take their answer. There is a goroutine for
//     each, never more.
//   - Options.MaxBuffered (default [DefaultMaxBuffered]) bounds the bytes of
//     those requests' frames and of the notifications queued or being handled,
//     each counted as its length plus [FrameOverhead]. A single frame larger
//     than the bound is taken when nothing else is held. On top of what is
//     held, the reader has one frame in hand, and assembles a line longer than
//     its read buffer from parts (twice the line's length while it does), so
//     inbound frames use at most MaxBuffered plus twice Options.MaxFrame.
//
// Responses to our calls and "$/cancel_request" are always read and never
// counted: their number is bounded by our own calls. When the next frame does
// not fit, the reader either pauses (reads nothing more until there is room)
// or, for a request, refuses it, depending on whether pausing could deadlock:
//
//   - A notification waits for room: the queued notifications are handled
//     by their own goroutine without anything more being read, so the wait
//     ends. The exception is a notification handler waiting for the answer to
//     its own Call, which may be behind the frames not read yet: while one
//     does, notifications are queued past the bound rather than risk that
//     deadlock. No notification is ever dropped, and they keep their order.
//   - A request waits for room while no Call of ours waits for an answer and
//     no handler has said, with [Conn.AwaitingInput], that it waits for a
//     later message (an ACP prompt turn runs until session/cancel): then every
//     request in flight finishes without anything more being read (running,
//     or waiting for the peer to read its answer), so the wait ends. This is
//     the backpressure a peer that pipelines requests faster than it reads the
//     answers gets: the reader stops, the pipe fills, the peer's writes block.
//   - Otherwise an answer awaited by a handler may be behind the request, and
//     pausing could deadlock: the request is answered with [CodeOverloaded]
//     ("Server overloaded") without running its handler, and reading goes on.
//     The peer may send it again later.
//
// A handler that waits for a later inbound message other than the answer to
// its own Call must say so with [Conn.AwaitingInput] (the generated ACP agent
// does it for prompt turns); a notification handler must not wait for a
// later inbound message at all (notifications run one at a time, so a later
// notification could never come anyway).
//
// # Shutdown
//
// Run returns when the reader reaches EOF (nil), when its context ends
// (ctx.Err()), when [Conn.Close] is called (nil), when a drain has finished
// (nil; see "Drain") or on a read error. In every
// case it first cancels the contexts of in-flight handlers, fails pending
// Calls with [ErrClosed], lets the notification goroutine finish the
// notifications already received (their context is cancelled), and waits for
// every handler to return; their replies are still written (best effort).
//
// Every request read before EOF (or before Close or the end of Run's
// context) is handed to the Handler, even one still waiting for a slot when
// Run starts to stop: its handler runs with its context already cancelled, and
// the answer is the handler's (-32800 if it then returns an error). The one
// exception is a request the peer cancelled with "$/cancel_request" before
// its handler started: it is answered -32800 and its handler never runs. A
// request refused under "Flow control" is answered [CodeOverloaded]. A
// request the reader is holding back for room when Close is called or Run's
// context ends, and frames it reads after that, are not handled (at EOF the
// reader holds nothing back).
// When Run stops before EOF it closes the reader if it is an io.Closer, so
// the blocked Read returns; a reader that cannot be closed is left in its
// Read, and the reader goroutine exits, touching nothing, as soon as that
// Read returns. The writer is never closed: it belongs to the caller, who
// may close it after Run returns to signal EOF to the peer.
//
// # Drain
//
// A [Drain] ends a connection gracefully: Run's context carries it
// ([WithDrain]; a router or a generated connection hands the context on),
// and [Drain.Start] makes Run answer requests read from then on with
// [CodeOverloaded] ("Server shutting down") while notifications and
// responses are still read, let the requests in flight (and the work held
// with [Drain.Hold]) finish, cancel them with cause [ErrDrained] when
// Start's context ends ([Drained] tells), write their answers, and return
// nil. runtime/acphttp's Server.Shutdown drains every connection this way.
//
// Logs go to Options.Logger (by default a text handler on os.Stderr), never
// to the protocol writer. A warning the peer can trigger once per frame (a
// rejected frame, an answer to an unknown id, a request refused at the
// bounds) is rate-limited per connection: its first line, then one summary
// line per 10 s while it repeats. A write that fails because the peer has
// gone (EOF, a closed pipe or connection, a reset) or while the connection
// shuts down is logged at Debug level; other write failures are errors.
package jsonrpc
