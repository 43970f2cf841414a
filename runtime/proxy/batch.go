package proxy

import (
	"errors"
	"sync"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// batch is a JSON-RPC batch read from a side (JSON-RPC 2.0 section 6).
// Its entries are handled one after the other as messages of their own
// (relayed one by one, intercepted, answering the proxy's requests), and
// the answers to its requests are collected, by entry order, and written
// to its sender as one array with the last of them.
type batch struct {
	mu      sync.Mutex
	answers [][]byte // one slot per request and per entry refused
	owed    int
}

// origin is where the answer to a request goes: written on its own, or
// into slot of its batch.
type origin struct {
	b    *batch
	slot int
}

// reply writes frame, the answer to a request from side s, or collects it
// into the request's batch; the batch's array goes out with its last
// answer.
func (c *chain) reply(s side, o origin, frame []byte) {
	if o.b != nil {
		if frame = o.b.fill(o.slot, frame); frame == nil {
			return
		}
	}
	_ = c.write(s, frame)
}

// fill records the answer of slot and returns the batch's array once every
// slot is answered, else nil.
func (b *batch) fill(slot int, frame []byte) []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.answers == nil || b.answers[slot] != nil {
		return nil // answered already
	}
	b.answers[slot] = frame
	if b.owed--; b.owed > 0 {
		return nil
	}
	out := []byte{'['}
	for i, a := range b.answers {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, a...)
	}
	b.answers = nil
	return append(out, ']')
}

// isBatch reports a frame whose JSON value is an array.
func isBatch(frame []byte) bool {
	return wire.Raw(frame).Kind() == wire.KindArray
}

// readBatch takes a batch from side s: an empty one, one that is not
// JSON, or one with more requests than the in-flight bound is refused
// whole with one -32600 (id null); otherwise each entry is taken in
// order, a refused entry answered in the array. False once the chain has
// ended.
func (c *chain) readBatch(s side, frame []byte) bool {
	entries, err := splitBatch(frame)
	if err != nil {
		c.answerError(s, nil, err)
		return true
	}
	b := &batch{}
	items := make([]*item, len(entries))
	for i, e := range entries {
		env, perr := jsonrpc.PeekEnvelope(e)
		it := &item{frame: e, env: env, valid: perr == nil}
		if it.isRequest() || !it.isMessage() {
			it.origin = origin{b, b.owed}
			b.owed++
		}
		items[i] = it
	}
	if b.owed > c.p.o.MaxInFlight {
		c.answerError(s, nil, &wire.RPCError{Code: wire.CodeInvalidRequest, Message: "Invalid request: a batch of more requests than the proxy holds in flight"})
		return true
	}
	b.answers = make([][]byte, b.owed)
	for _, it := range items {
		if !it.isMessage() {
			c.reply(s, it.origin, invalidEntry(it.frame))
			continue
		}
		if !c.take(s, it) {
			return false
		}
	}
	return true
}

// splitBatch returns the entries of a batch, slices of frame; an empty
// batch or one that is not JSON is an error to answer with.
func splitBatch(frame []byte) ([][]byte, *wire.RPCError) {
	if !wire.Valid(frame) {
		return nil, &wire.RPCError{Code: wire.CodeParseError, Message: "Parse error"}
	}
	d := wire.NewDecoder(frame, wire.Strict)
	var entries [][]byte
	if err := d.BeginArray(); err != nil {
		return nil, &wire.RPCError{Code: wire.CodeParseError, Message: "Parse error"}
	}
	for {
		more, err := d.NextItem()
		if err != nil || !more {
			break
		}
		start := d.Offset()
		if d.Peek() == wire.KindInvalid || d.Skip() != nil {
			break
		}
		entries = append(entries, trimSpace(frame[start:d.Offset()]))
	}
	if len(entries) == 0 {
		return nil, &wire.RPCError{Code: wire.CodeInvalidRequest, Message: "Invalid request: empty batch"}
	}
	return entries, nil
}

// trimSpace drops the JSON whitespace before a value.
func trimSpace(b []byte) []byte {
	return b[skipSpaceAt(b, 0):]
}

// invalidEntry is the answer to a batch entry that is no JSON-RPC
// message: -32600, id null.
func invalidEntry(entry []byte) []byte {
	_, err := jsonrpc.PeekEnvelope(entry)
	var fe *jsonrpc.FrameError
	e := &wire.RPCError{Code: wire.CodeInvalidRequest, Message: "Invalid request"}
	if errors.As(err, &fe) {
		e = fe.RPCError()
	}
	b, _ := jsonrpc.AppendError(nil, nil, e)
	return b[:len(b)-1]
}
