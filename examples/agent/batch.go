package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
)

// ACP v2 follows JSON-RPC 2.0's batch rules (its transports page), while
// runtime/jsonrpc answers a batch with one -32600. newBatchIO adapts a v2
// connection's stdio for it: a batch line is handed to the connection entry
// by entry, and the responses to its requests go out together as one array
// once all are written. An empty batch gets one -32600 and a batch of
// notifications no reply; an entry the connection answers with id null (not
// a request) is answered outside the array. A transport that frames
// messages itself (a WebSocket) is left as it is.
func newBatchIO(r io.Reader, w io.Writer) (io.Reader, io.Writer) {
	_, framedR := r.(jsonrpc.MessageReader)
	_, framedW := w.(jsonrpc.MessageWriter)
	if framedR || framedW {
		return r, w
	}
	bw := &batchWriter{Writer: w}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), jsonrpc.DefaultMaxFrame+2)
	return &batchReader{Reader: r, sc: sc, w: bw}, bw
}

// batchReader splits batch lines into their entries (jsonrpc.MessageReader).
type batchReader struct {
	io.Reader
	sc    *bufio.Scanner
	w     *batchWriter
	queue [][]byte
}

// ReadMessage returns the next message: a line, or a batch line's next
// entry.
func (b *batchReader) ReadMessage() ([]byte, error) {
	for len(b.queue) == 0 {
		if !b.sc.Scan() {
			if err := b.sc.Err(); err != nil {
				return nil, err
			}
			return nil, io.EOF
		}
		line := bytes.TrimSpace(b.sc.Bytes())
		var items []json.RawMessage
		if len(line) == 0 || line[0] != '[' || json.Unmarshal(line, &items) != nil {
			b.queue = append(b.queue, bytes.Clone(line)) // the connection judges it
			continue
		}
		if len(items) == 0 {
			b.w.raw([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: an empty batch"}}`))
			continue
		}
		b.w.expect(items)
		for _, it := range items {
			b.queue = append(b.queue, bytes.Clone(it))
		}
	}
	m := b.queue[0]
	b.queue = b.queue[1:]
	return m, nil
}

// batchWriter holds the responses of a batch's requests until the batch is
// answered (jsonrpc.MessageWriter).
type batchWriter struct {
	io.Writer
	mu      sync.Mutex
	pending []*batchReply
	wmu     sync.Mutex // one line at a time: the reader answers empty batches
}

// batchReply is a batch's answer in the making: the ids of its requests not
// answered yet, and the responses written so far.
type batchReply struct {
	want map[string]bool
	got  [][]byte
}

// expect registers a batch's requests (the entries with a method and an id).
func (b *batchWriter) expect(items []json.RawMessage) {
	r := &batchReply{want: map[string]bool{}}
	for _, it := range items {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(it, &m) == nil && m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null" {
			r.want[string(m.ID)] = true
		}
	}
	if len(r.want) > 0 {
		b.mu.Lock()
		b.pending = append(b.pending, r)
		b.mu.Unlock()
	}
}

// WriteMessage writes msg, or keeps it when it answers a pending batch's
// request, writing the batch's array once its last response came.
func (b *batchWriter) WriteMessage(msg []byte) error {
	b.mu.Lock()
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if len(b.pending) > 0 && json.Unmarshal(msg, &m) == nil && m.Method == "" {
		for i, r := range b.pending {
			if !r.want[string(m.ID)] {
				continue
			}
			delete(r.want, string(m.ID))
			r.got = append(r.got, bytes.Clone(msg))
			if len(r.want) > 0 {
				b.mu.Unlock()
				return nil
			}
			b.pending = append(b.pending[:i], b.pending[i+1:]...)
			msg = append(append([]byte("["), bytes.Join(r.got, []byte(","))...), ']')
			break
		}
	}
	b.mu.Unlock()
	return b.raw(msg)
}

// raw writes one line.
func (b *batchWriter) raw(msg []byte) error {
	b.wmu.Lock()
	defer b.wmu.Unlock()
	_, err := b.Writer.Write(append(bytes.Clone(msg), '\n'))
	return err
}
