package jsonrpc

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
)

// msgPipe is a message-framed transport: the test feeds whole messages in
// and collects the whole messages the Conn writes.
type msgPipe struct {
	in  chan []byte
	mu  sync.Mutex
	out [][]byte
	got chan struct{}
}

func (p *msgPipe) ReadMessage() ([]byte, error) {
	m, ok := <-p.in
	if !ok {
		return nil, io.EOF
	}
	return m, nil
}

func (p *msgPipe) WriteMessage(m []byte) error {
	p.mu.Lock()
	p.out = append(p.out, append([]byte(nil), m...))
	p.mu.Unlock()
	p.got <- struct{}{}
	return nil
}

func (p *msgPipe) Read([]byte) (int, error)  { panic("Conn read a MessageReader as a byte stream") }
func (p *msgPipe) Write([]byte) (int, error) { panic("Conn wrote a MessageWriter as a byte stream") }
func (p *msgPipe) messages() (ms []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.out {
		ms = append(ms, string(m))
	}
	return ms
}

// A MessageReader/MessageWriter gets whole messages without line
// terminators; a message may span lines; an oversized one is answered -32600.
func TestConnMessageFraming(t *testing.T) {
	p := &msgPipe{in: make(chan []byte, 4), got: make(chan struct{}, 4)}
	c := NewConn(p, p, funcs{req: echo}, Options{MaxFrame: 64, Logger: testLogger(&syncBuffer{})})
	done := make(chan error, 1)
	go func() { done <- c.Run(context.Background()) }()
	p.in <- []byte("{\"jsonrpc\":\"2.0\",\n\"id\":1,\"method\":\"m\",\"params\":{\"a\":1}}")
	p.in <- []byte(`{"jsonrpc":"2.0","id":2,"method":"m","params":"` + strings.Repeat("x", 64) + `"}`)
	for range 2 {
		<-p.got
	}
	close(p.in)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got := strings.Join(p.messages(), "|")
	for _, want := range []string{`{"jsonrpc":"2.0","id":1,"result":{"a":1}}`, `"id":null,"error":{"code":-32600`} {
		if !strings.Contains(got, want) {
			t.Errorf("messages %s, want one with %s", got, want)
		}
	}
	if strings.Contains(got, "\n") {
		t.Errorf("messages %q carry a line terminator", got)
	}
}
