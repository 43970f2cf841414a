package dispatch_test

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/dispatch"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
)

// turnServer serves open, turn and cancel with Routes naming the turn: turn
// hands its Turn to the test and answers when told to.
type turnServer struct {
	end    dispatch.End
	turns  chan *dispatch.Turn
	answer chan struct{}
	keep   bool
	kept   chan func()
}

var turnRoutes = &dispatch.Routes{Open: &opening, Turn: &dispatch.TurnMethods{Prompt: turnM.Wire, Cancel: cancelM.Wire},
	Methods: []dispatch.Handled{
		{Method: &openM.Method, Params: (*msg)(nil)},
		{Method: &turnM.Method, Params: (*msg)(nil)},
		{Method: &cancelM.Method, Params: (*msg)(nil)},
	}}

func (s *turnServer) route(ctx context.Context, i int, p any) (any, error) {
	switch i {
	case 0:
		return p, nil
	case 1:
		t := dispatch.TurnFrom(ctx)
		if s.keep {
			s.kept <- t.Keep()
		}
		s.turns <- t
		<-s.answer
		return &msg{X: "done"}, nil
	}
	return nil, nil
}

// serveTurns runs a turnServer and returns it and the writer of its input.
func serveTurns(t *testing.T, keep bool) (*turnServer, io.Writer) {
	s := &turnServer{turns: make(chan *dispatch.Turn, 4), answer: make(chan struct{}), keep: keep, kept: make(chan func(), 4)}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	opened := make(chan struct{}) // the open's answer, the first line out, is written
	go func() {
		br := bufio.NewReader(outR)
		br.ReadBytes('\n')
		close(opened)
		io.Copy(io.Discard, br)
	}()
	dispatch.Connect(&s.end, turnRoutes, s.route, s, inR, outW, dispatch.Options{RPC: jsonrpc.Options{Logger: slog.New(slog.DiscardHandler)}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.end.Conn.Run(ctx) }()
	t.Cleanup(func() { cancel(); inW.Close(); outW.Close(); <-done })
	io.WriteString(inW, `{"jsonrpc":"2.0","id":0,"method":"open","params":{}}`+"\n")
	<-opened // a prompt read before the open is answered would be refused, not a turn
	return s, inW
}

func nextTurn(t *testing.T, s *turnServer) *dispatch.Turn {
	t.Helper()
	select {
	case tr := <-s.turns:
		return tr
	case <-time.After(10 * time.Second):
		t.Fatal("no turn")
		return nil
	}
}

func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: not cancelled", what)
	}
}

// A cancel read before a turn's prompt leaves it running; one read after
// ends it (Done, TurnCancelled, the context's cause); other sessions are
// untouched.
func TestTurnCancelInWireOrder(t *testing.T) {
	s, in := serveTurns(t, false)
	io.WriteString(in, `{"jsonrpc":"2.0","method":"cancel","params":{"sessionId":"a"}}`+"\n"+
		`{"jsonrpc":"2.0","id":1,"method":"turn","params":{"sessionId":"a"}}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"turn","params":{"sessionId":"b"}}`+"\n"+
		`{"jsonrpc":"2.0","method":"cancel","params":{"sessionId":"b"}}`+"\n")
	got := map[string]*dispatch.Turn{}
	for range 2 {
		tr := nextTurn(t, s)
		got[tr.Session()] = tr
	}
	waitClosed(t, got["b"].Done(), "b")
	if got["a"].Cancelled() {
		t.Error("a cancel read before the prompt ended its turn")
	}
	close(s.answer)
}

// A kept turn stays cancellable after its request is answered, until
// released.
func TestTurnKeep(t *testing.T) {
	s, in := serveTurns(t, true)
	io.WriteString(in, `{"jsonrpc":"2.0","id":1,"method":"turn","params":{"sessionId":"a"}}`+"\n")
	tr := nextTurn(t, s)
	release := <-s.kept
	s.answer <- struct{}{}
	io.WriteString(in, `{"jsonrpc":"2.0","method":"cancel","params":{"sessionId":"a"}}`+"\n")
	waitClosed(t, tr.Done(), "kept turn")
	release()
	release()

	io.WriteString(in, `{"jsonrpc":"2.0","id":2,"method":"turn","params":{"sessionId":"a"}}`+"\n")
	tr2 := nextTurn(t, s)
	release2 := <-s.kept
	if tr2.Cancelled() {
		t.Error("a cancel of an earlier turn ended a later one")
	}
	release2()
	close(s.answer)
}
