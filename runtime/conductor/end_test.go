package conductor

import (
	"context"
	"io"
	"testing"
	"time"
)

// stalledEditor runs a chain whose editor writes lines and never reads the
// conductor's stdout; Run's outcome arrives on the returned channel.
func stalledEditor(t *testing.T, ctx context.Context, o Options, lines ...string) <-chan runOutcome {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe() // never read: every write to the editor blocks
	t.Cleanup(func() { inW.Close(); outR.Close() })
	o.Stdin, o.Stdout = inR, outW
	done := make(chan runOutcome, 1)
	go func() {
		res, err := Run(ctx, o)
		done <- runOutcome{res, err}
	}()
	for _, l := range lines {
		if _, err := io.WriteString(inW, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	return done
}

func waitRun(t *testing.T, done <-chan runOutcome) runOutcome {
	t.Helper()
	select {
	case o := <-done:
		return o
	case <-time.After(deadline):
		t.Fatalf("Run did not return within %v while the editor does not read", deadline)
	}
	return runOutcome{}
}

// A component that exits while the editor reads nothing still ends the
// chain: the other components are stopped (the stubborn proxy killed) and
// Run returns, although the editor's error answers cannot be written.
func TestComponentExitWithEditorNotReading(t *testing.T) {
	done := stalledEditor(t, context.Background(), Options{Grace: 200 * time.Millisecond,
		Components: [][]string{self(t, "proxy:a:stubborn"), self(t, "agent")}},
		`{"jsonrpc":"2.0","id":"hang","method":"_test/hang","params":{}}`,
		`{"jsonrpc":"2.0","id":"die","method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"die"}]}}`)
	o := waitRun(t, done)
	if o.err != nil || o.res.Ended == nil || o.res.Ended.Component != 2 || o.res.Ended.Status != 7 {
		t.Fatalf("Run: %+v, %v; want the chain ended by component 2", o.res, o.err)
	}
	if a := o.res.Exits[0]; !a.Killed {
		t.Errorf("the stubborn proxy: %+v, want killed", a)
	}
}

// A cancelled context (acpgen conduct's SIGTERM) ends the chain once, even
// while a component's output and the conductor's answers wait for an
// editor that reads nothing.
func TestCancelWithEditorNotReading(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := stalledEditor(t, ctx, Options{Grace: 200 * time.Millisecond,
		Components: [][]string{self(t, "proxy:a:stubborn"), self(t, "agent")}},
		`{"jsonrpc":"2.0","id":"hang","method":"_test/hang","params":{}}`,
		`{"jsonrpc":"2.0","id":"burst","method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"burst 512"}]}}`)
	cancel()
	o := waitRun(t, done)
	if o.err != context.Canceled || o.res.Ended != nil {
		t.Fatalf("Run: %+v, %v; want context.Canceled and no component ending the chain", o.res, o.err)
	}
}

// When the chain ends, every request of the editor's still waiting is
// answered, two in flight under the same id included.
func TestEndAnswersRequestsSharingAnID(t *testing.T) {
	e := startChain(t, Options{Grace: time.Second,
		Components: [][]string{self(t, "proxy:a"), self(t, "agent")}})
	e.initialize()
	e.send(`{"jsonrpc":"2.0","id":"same","method":"_test/hang","params":{}}`)
	e.send(`{"jsonrpc":"2.0","id":"same","method":"_test/hang","params":{}}`)
	e.send(`{"jsonrpc":"2.0","id":"die","method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"die"}]}}`)
	got := map[string]int{}
	for range 3 {
		m := e.next()
		if err := errorOf(t, m); err.Code != -32603 {
			t.Errorf("request %s: %+v, want -32603", m.ID, err)
		}
		got[string(m.ID)]++
	}
	if got[`"same"`] != 2 || got[`"die"`] != 1 {
		t.Errorf("answers by id: %v, want 2 for \"same\" and 1 for \"die\"", got)
	}
	o := e.wait()
	if o.res == nil || o.res.Ended == nil {
		t.Fatalf("Run: %+v, %v; want the chain ended by the agent", o.res, o.err)
	}
}
