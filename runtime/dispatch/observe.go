package dispatch

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// Direction is which way an observed message travels, seen from its End.
type Direction uint8

const (
	// Inbound is a message received from the peer.
	Inbound Direction = iota + 1
	// Outbound is a message sent to the peer.
	Outbound
)

// String returns "inbound" or "outbound".
func (d Direction) String() string {
	switch d {
	case Inbound:
		return "inbound"
	case Outbound:
		return "outbound"
	}
	return "unknown"
}

// Message is what an Observer is told about one request or notification.
type Message struct {
	// Method is the JSON-RPC method name.
	Method string
	// Direction is whether the message was received or is being sent.
	Direction Direction
	// Notification is true for a notification, which gets no response.
	Notification bool
	// SessionID is the params' top-level sessionId string, "" when they
	// carry none.
	SessionID string
	// Meta is the params' _meta member as JSON, nil when absent.
	Meta wire.Raw
	// Inject is, for an outbound message, string members that Begin
	// wants added to the params' _meta (trace context); they replace the
	// caller's members of the same name. The observer sets it; nil adds
	// nothing. A propagation carrier that is a map[string]string fits.
	Inject map[string]string
}

// Finish ends an observation: err is how the message ended, nil for
// success, and code its JSON-RPC error code (0 for none, or for an error
// that is not a JSON-RPC one, such as the caller's context ending).
type Finish func(code wire.ErrorCode, err error)

// Observer watches every request and notification an End receives or
// sends: the hook tracing plugs into. Its Begin runs on the goroutine that
// handles or sends the message, so it must be safe for concurrent use. A
// nil Observer costs nothing.
type Observer interface {
	// Begin is called before a received message reaches its handler, and
	// before a message is sent (after this side's own checks passed). The
	// context it returns is the handler's, or the one the send runs under.
	// The Finish it returns (nil for none) is called once: when the
	// handler returned (a request's error code is the one answered), or
	// when the response arrived or the notification was written.
	Begin(ctx context.Context, m *Message) (context.Context, Finish)
}

// scanParams returns params' top-level sessionId string and _meta value,
// and where that value lies in params (start -1: absent). Params that are
// not an object yield nothing.
func scanParams(params []byte) (session string, meta wire.Raw, start, end int) {
	start = -1
	d := wire.NewDecoder(params, wire.Lenient)
	if d.Peek() != wire.KindObject || d.BeginObject() != nil {
		return
	}
	for {
		key, ok, err := d.NextKey()
		if err != nil || !ok {
			return
		}
		switch string(key) {
		case "sessionId":
			if d.Peek() == wire.KindString {
				session, err = d.ReadString()
				break
			}
			err = d.Skip()
		case "_meta":
			at := d.Offset()
			err = d.Skip()
			start, end = skipSpaceAt(params, at), d.Offset()
			meta = wire.Raw(params[start:end])
		default:
			err = d.Skip()
		}
		if err != nil {
			return
		}
	}
}

// skipSpaceAt returns the index of the first non-space byte of b from i.
func skipSpaceAt(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// withMeta returns params with the members of add set in its _meta,
// which lies at params[start:end] (start -1: absent, so it is added as
// the first member). A _meta that is not an object is replaced.
func withMeta(params []byte, add map[string]string, start, end int) []byte {
	if start < 0 {
		open := skipSpaceAt(params, 0)
		if open >= len(params) || params[open] != '{' {
			return params // not an object: nowhere to put it
		}
		out := append([]byte(nil), params[:open+1]...)
		out = appendMeta(append(out, `"_meta":`...), nil, add)
		rest := params[open+1:]
		if i := skipSpaceAt(rest, 0); i < len(rest) && rest[i] != '}' {
			out = append(out, ',')
		}
		return append(out, rest...)
	}
	out := append([]byte(nil), params[:start]...)
	out = appendMeta(out, params[start:end], add)
	return append(out, params[end:]...)
}

// appendMeta appends a _meta object: old's members that add does not
// replace (old not an object: none), then add's in key order.
func appendMeta(b []byte, old []byte, add map[string]string) []byte {
	comma := false
	b = append(b, '{')
	d := wire.NewDecoder(old, wire.Lenient)
	if len(old) > 0 && d.Peek() == wire.KindObject && d.BeginObject() == nil {
		for {
			key, ok, err := d.NextKey()
			if err != nil || !ok {
				break
			}
			k := string(key)
			v, err := d.ReadRaw()
			if err != nil {
				break
			}
			if _, replaced := add[k]; !replaced {
				b = append(wire.AppendString(wire.Key(b, &comma, ""), k), ':')
				b = append(b, v...)
			}
		}
	}
	keys := make([]string, 0, len(add))
	for k := range add {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		b = append(wire.AppendString(wire.Key(b, &comma, ""), k), ':')
		b = wire.AppendString(b, add[k])
	}
	return append(b, '}')
}

// errorCode is the JSON-RPC code err is answered or arrived with, 0 for
// nil; answered says an error this side answers a request with, which the
// connection turns into -32603 when it carries no code.
func errorCode(err error, answered bool) wire.ErrorCode {
	if err == nil {
		return 0
	}
	var re *wire.RPCError
	if errors.As(err, &re) && re != nil {
		return re.Code
	}
	var conv interface{ RPCError() *wire.RPCError }
	if errors.As(err, &conv) {
		if re := conv.RPCError(); re != nil {
			return re.Code
		}
	}
	if answered {
		return wire.CodeInternalError
	}
	return 0
}

// begin starts observing a message of this End's: its session and _meta
// are read from params. The Finish it returns is never nil.
func (e *End) begin(ctx context.Context, dir Direction, method string, notification bool, params []byte) (context.Context, *Message, Finish) {
	return begin(ctx, e.obs, dir, method, notification, params)
}

func begin(ctx context.Context, o Observer, dir Direction, method string, notification bool, params []byte) (context.Context, *Message, Finish) {
	m := &Message{Method: method, Direction: dir, Notification: notification}
	m.SessionID, m.Meta, _, _ = scanParams(params)
	ctx, finish := o.Begin(ctx, m)
	if finish == nil {
		finish = func(wire.ErrorCode, error) {}
	}
	return ctx, m, finish
}

// send observes an outbound message: it returns the context to send it
// under and params with what the observer injects into _meta.
func (e *End) send(ctx context.Context, method string, notification bool, params []byte) (context.Context, []byte, Finish) {
	return Observe(ctx, e.obs, Outbound, method, notification, params)
}

// Observe tells o of a message that no End sends or receives itself, as a
// relay (runtime/proxy) sees it: the session and _meta are read from
// params. For an outbound message the params returned carry what o
// injects into their _meta (a new slice; params is not modified). The
// Finish returned is never nil.
func Observe(ctx context.Context, o Observer, dir Direction, method string, notification bool, params []byte) (context.Context, []byte, Finish) {
	ctx, m, finish := begin(ctx, o, dir, method, notification, params)
	if dir == Outbound && len(m.Inject) > 0 {
		_, _, start, end := scanParams(params)
		params = withMeta(params, m.Inject, start, end)
	}
	return ctx, params, finish
}

// call sends a request, recorded and observed when the End has a Record
// hook and an Observer.
func (e *End) call(ctx context.Context, method string, params []byte) (wire.Raw, error) {
	if err := e.recordSend(ctx, method, params); err != nil {
		return nil, err
	}
	if e.obs == nil {
		return e.Conn.Call(ctx, method, params)
	}
	ctx, params, finish := e.send(ctx, method, false, params)
	raw, err := e.Conn.Call(ctx, method, params)
	finish(errorCode(err, false), err)
	return raw, err
}

// notify sends a notification, recorded and observed when the End has a
// Record hook and an Observer.
func (e *End) notify(ctx context.Context, method string, params []byte) error {
	if err := e.recordSend(ctx, method, params); err != nil {
		return err
	}
	if e.obs == nil {
		return e.Conn.Notify(ctx, method, params)
	}
	ctx, params, finish := e.send(ctx, method, true, params)
	err := e.Conn.Notify(ctx, method, params)
	finish(errorCode(err, false), err)
	return err
}

// recordSend gives a message about to be sent to the Record hook; its
// error stops the send.
func (e *End) recordSend(ctx context.Context, method string, params []byte) error {
	if e.record == nil {
		return nil
	}
	session, _ := jsonrpc.SessionID(params)
	if err := e.record(ctx, method, session, params); err != nil {
		return fmt.Errorf("%s not sent: not recorded: %w", method, err)
	}
	return nil
}

// errPanicked ends the observation of a handler that panicked; the
// connection answers the request -32603.
var errPanicked = errors.New("handler panicked")

// observeRequest runs handle on a received request under the End's Observer.
func (e *End) observeRequest(ctx context.Context, method string, params wire.Raw, handle func(context.Context) (wire.Raw, error)) (wire.Raw, error) {
	ctx, _, finish := e.begin(ctx, Inbound, method, false, params)
	returned := false
	defer func() {
		if !returned {
			finish(wire.CodeInternalError, errPanicked)
		}
	}()
	res, err := handle(ctx)
	returned = true
	finish(errorCode(err, true), err)
	return res, err
}

// observeNotification runs handle on a received notification under the
// End's Observer.
func (e *End) observeNotification(ctx context.Context, method string, params wire.Raw, handle func(context.Context)) {
	ctx, _, finish := e.begin(ctx, Inbound, method, true, params)
	returned := false
	defer func() {
		if !returned {
			finish(wire.CodeInternalError, errPanicked)
		}
	}()
	handle(ctx)
	returned = true
	finish(0, nil)
}
