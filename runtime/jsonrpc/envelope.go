package jsonrpc

import (
	"github.com/acpgen/acpgen/runtime/wire"
)

// Envelope is what a frame's JSON-RPC members are, read without decoding
// params, result or error: what a Conn classifies a frame by, and what a
// router or a transport routes it by. A member that occurs twice counts
// once, with its last value.
type Envelope struct {
	// ID, Method, Params, Result and Error are the members' values exactly
	// as sent (aliasing the frame, a JSON null included); nil when absent.
	ID, Method, Params, Result, Error wire.Raw
	// Name is the method's value when Method is a JSON string, else "".
	Name string
	// V2 reports a "jsonrpc" member whose value is the string "2.0".
	V2 bool

	// pre, when set, decodes the params of the method read before them
	// into decoded, a value for the method named decodedFor.
	pre        Dispatcher
	decoded    any
	decodedFor string
	// names, when set, keeps method names to return again rather than
	// allocate each.
	names *names
}

// names are the last method names a reader returned: a connection's
// messages name few methods, which need not be allocated each time.
type names struct {
	s     [8]string
	plain [8]bool // s[i] is a plain name (plainName)
	next  int
	hit   int // the last found
}

// of returns b as a string, one of n's when it is there.
func (n *names) of(b []byte) string {
	s, _ := n.find(b)
	return s
}

// plainOf returns b as of does, and whether b is a plain name, which a
// name n has kept is known to be without looking at its bytes again.
func (n *names) plainOf(b []byte) (string, bool) {
	return n.find(b)
}

func (n *names) find(b []byte) (string, bool) {
	if s := n.s[n.hit]; s == string(b) { // a run of one method's messages
		return s, n.plain[n.hit]
	}
	for i, s := range n.s {
		if s == string(b) {
			n.hit = i
			return s, n.plain[i]
		}
	}
	s := string(b)
	n.s[n.next], n.plain[n.next] = s, plainName(b)
	plain := n.plain[n.next]
	n.hit, n.next = n.next, (n.next+1)%len(n.s)
	return s, plain
}

// plainName reports a method name of printable ASCII without '"' or '\\',
// which a frame holds as it is, unescaped.
func plainName(b []byte) bool {
	for _, c := range b {
		if !plainByte[c] || c == '"' {
			return false
		}
	}
	return len(b) > 0
}

// plainByte reports the bytes a JSON string holds as they are, unescaped,
// that are printable ASCII: all but controls, '\\', and from 0x7f.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '\\'
	}
	return t
}()

// MethodIsString reports a method member that is a JSON string.
func (e *Envelope) MethodIsString() bool { return e.Method.Kind() == wire.KindString }

// IDValid reports an id that JSON-RPC allows: absent, a string, a number or
// null.
func (e *Envelope) IDValid() bool { return e.ID == nil || validID(e.ID.Kind()) }

// The predicates below are JSON-RPC 2.0's classes of a message by its
// members alone (§4, §5): every reader in this repository classifies by
// them, and checks validity (Conn: parse; the conductor: classify) apart.
// A member present with the value null counts as present.

// IsRequest reports a method and an id: a call its peer answers. The id
// may be null, which the specification allows but discourages; the answer
// then has id null too, like an error response to a message the peer
// could not read, so a reader that routes answers by id (runtime/acphttp)
// tests IDIsNull as well.
func (e *Envelope) IsRequest() bool { return e.Method != nil && e.ID != nil }

// IsNotification reports a method without an id: nothing answers it.
func (e *Envelope) IsNotification() bool { return e.Method != nil && e.ID == nil }

// IsResponse reports an id without a method: a response, whether or not it
// carries exactly one of result and error (a Conn refuses it otherwise; a
// relay passes it on). One with id null is an error response to a message
// its sender could not read (§5), which answers none of the reader's
// requests.
func (e *Envelope) IsResponse() bool { return e.Method == nil && e.ID != nil }

// IDIsNull reports an id member whose value is null.
func (e *Envelope) IDIsNull() bool { return e.ID.Kind() == wire.KindNull }

// ReplyID is the id an error reply to this message carries: a request's
// id when JSON-RPC allows it and it fits MaxIDLength; nil, written as null,
// for anything else. A response's id is never echoed: its sender would
// take the reply for the answer to its own request with that id.
func (e *Envelope) ReplyID() wire.Raw {
	if e.IsRequest() && e.IDValid() && len(e.ID) <= MaxIDLength {
		return e.ID
	}
	return nil
}

func validID(k wire.Kind) bool {
	return k == wire.KindString || k == wire.KindNumber || k == wire.KindNull
}

// FrameError is why a frame is not a JSON-RPC message: CodeParseError for
// one that is not JSON, CodeInvalidRequest for JSON that is not a valid
// message.
type FrameError struct {
	Code   wire.ErrorCode
	Reason string
}

func (e *FrameError) Error() string { return e.Reason }

// RPCError is the error response a Conn answers the frame with: "Parse
// error" or "Invalid request", the reason under data.details as the
// TypeScript SDK puts it.
func (e *FrameError) RPCError() *wire.RPCError {
	msg := "Invalid request"
	if e.Code == wire.CodeParseError {
		msg = "Parse error"
	}
	data := wire.AppendString([]byte(`{"details":`), e.Reason)
	return &wire.RPCError{Code: e.Code, Message: msg, Data: wire.Raw(append(data, '}'))}
}

func parseError(err error) *FrameError {
	return &FrameError{Code: wire.CodeParseError, Reason: err.Error()}
}

func invalidRequest(reason string) *FrameError {
	return &FrameError{Code: wire.CodeInvalidRequest, Reason: reason}
}

// PeekEnvelope reads frame, which must be one JSON object, and returns its
// JSON-RPC members. The whole frame is checked to be JSON (as strictly as
// a Conn reads it); the error is a *FrameError: CodeParseError when frame
// is not JSON, CodeInvalidRequest when it is JSON but not an object (an
// array is a batch: several messages, which a Conn splits into its entries
// before reading each).
func PeekEnvelope(frame []byte) (Envelope, error) {
	var d wire.Decoder
	var e Envelope
	if f := readEnvelope(&d, frame, &e); f != nil {
		return Envelope{}, f
	}
	return e, nil
}

// readEnvelope reads frame's members into e with d.
func readEnvelope(d *wire.Decoder, frame []byte, e *Envelope) *FrameError {
	if f := beginObject(d, frame, wire.Strict); f != nil {
		return f
	}
	return readMembers(d, frame, e)
}

// beginObject starts decoding frame, which must be one JSON object, in
// mode.
func beginObject(d *wire.Decoder, frame []byte, mode wire.Mode) *FrameError {
	d.Reset(frame, mode)
	switch d.Peek() {
	case wire.KindObject:
	case wire.KindArray:
		if !wire.Valid(frame) {
			return parseError(errOf(frame))
		}
		return invalidRequest("a message must be a JSON object, not an array")
	default:
		if !wire.Valid(frame) {
			return parseError(errOf(frame))
		}
		return invalidRequest("a message must be a JSON object")
	}
	if err := d.BeginObject(); err != nil {
		return parseError(err)
	}
	return nil
}

// readMembers reads every member of the frame's object into e. It walks
// every member even after a problem: a syntax error anywhere makes the
// frame a parse error, which takes precedence.
func readMembers(d *wire.Decoder, frame []byte, e *Envelope) *FrameError {
	for {
		key, more, err := d.NextKey()
		if err != nil {
			return parseError(err)
		}
		if !more {
			break
		}
		read, err := e.member(d, frame, key)
		if err != nil {
			return parseError(err)
		}
		if read {
			continue
		}
		// Unknown members: validate and skip.
		if err := d.Skip(); err != nil {
			return parseError(err)
		}
	}
	if err := d.Finish(); err != nil {
		return parseError(err)
	}
	return nil
}

// member reads the value of member key when it is a JSON-RPC member; read
// is false when the value is left for the caller to skip.
func (e *Envelope) member(d *wire.Decoder, frame, key []byte) (read bool, err error) {
	switch string(key) {
	case "jsonrpc":
		e.V2 = false
		if d.Peek() == wire.KindString {
			v, err := d.ReadStringBytes()
			e.V2 = err == nil && string(v) == "2.0"
			return true, err
		}
		return false, nil
	case "method":
		return true, e.readMethod(d, frame)
	case "id":
		e.ID, _, err = rawValue(d, frame)
	case "params":
		e.decoded = nil
		if e.pre != nil && e.Name != "" && d.Peek() == wire.KindObject {
			mark, start := d.Mark(), d.Offset()
			if v := e.pre.DecodeParams(e.Name, d); v != nil {
				e.Params, e.decoded, e.decodedFor = wire.Raw(frame[start:d.Offset()]), v, e.Name
				return true, nil
			}
			d.Rewind(mark)
		}
		e.Params, _, err = rawValue(d, frame)
	case "result":
		e.Result, _, err = rawValue(d, frame)
	case "error":
		e.Error, _, err = rawValue(d, frame)
	default:
		return false, nil
	}
	return true, err
}

// readMethod reads the method's value, and its name when it is a string.
func (e *Envelope) readMethod(d *wire.Decoder, frame []byte) (err error) {
	e.Name = ""
	if d.Peek() != wire.KindString { // Peek skips whitespace: Offset is the value's start
		e.Method, _, err = rawValue(d, frame)
		return err
	}
	start := d.Offset()
	if e.names == nil {
		e.Name, err = d.ReadString()
	} else {
		var b []byte
		if b, err = d.ReadStringBytes(); err == nil {
			e.Name = e.names.of(b)
		}
	}
	if err != nil {
		return err
	}
	e.Method = wire.Raw(frame[start:d.Offset()])
	return nil
}

// rawValue returns the next value's bytes, which alias frame, and its kind.
func rawValue(d *wire.Decoder, frame []byte) (wire.Raw, wire.Kind, error) {
	kind := d.Peek() // also skips whitespace, so Offset is the value's start
	start := d.Offset()
	if err := d.Skip(); err != nil {
		return nil, kind, err
	}
	return wire.Raw(frame[start:d.Offset()]), kind, nil
}

// errOf returns the syntax error of invalid JSON.
func errOf(b []byte) error {
	var d wire.Decoder
	d.Reset(b, wire.Strict)
	if err := d.Skip(); err != nil {
		return err
	}
	return d.Finish()
}
