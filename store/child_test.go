package store

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/acpgen/acpgen/runtime/session"
)

// childEnv, when set, makes the test binary a child process of a test
// instead (see TestMain): "append SPEC" or "open SPEC [FILESIZELIMIT]".
const childEnv = "ACPGEN_STORE_TEST_CHILD"

// runChild runs a child and exits.
func runChild(how string) {
	mode, arg, _ := strings.Cut(how, " ")
	switch mode {
	case "append":
		childAppend(arg)
	case "open":
		childOpen(arg)
	}
	fmt.Fprintf(os.Stderr, "unknown child %q\n", how)
	os.Exit(2)
}

// childOpen opens the store and prints "opened" or "error: " and the error,
// after limiting the size of files it may write when a limit follows.
func childOpen(arg string) {
	spec, limit, ok := strings.Cut(arg, " ")
	if ok {
		n, err := strconv.ParseUint(limit, 10, 64)
		if err == nil {
			err = limitFileSize(n)
		}
		if err != nil {
			fmt.Println("limit:", err)
			os.Exit(2)
		}
	}
	st, err := Open(context.Background(), spec, Options{})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(0)
	}
	st.Close()
	fmt.Println("opened")
	os.Exit(0)
}

// ackData is what the appending child records as the i-th event (sequence
// i) of session id, so that the parent knows what each acknowledged sequence
// must hold.
func ackData(id string, seq uint64) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"%s %d"}}`, id, seq))
}

// childAppend writes to the store until it is killed: writers, each on a
// session of its own, run turns of five updates, and print "ID SEQ KIND" once
// each write has returned. Writer w records its turn's updates w+1 to an
// Append (1, 2, 3, 4, then the rest), as write-behind recording batches
// what queued during the previous commit.
func childAppend(spec string) {
	ctx := context.Background()
	st, err := Open(ctx, spec, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var mu sync.Mutex
	ack := func(id string, seq uint64, kind session.Kind) {
		mu.Lock()
		defer mu.Unlock()
		// One write per line: a line is in the pipe whole or not at all.
		os.Stdout.WriteString(fmt.Sprintf("%s %d %d\n", id, seq, kind))
	}
	die := func(err error) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var wg sync.WaitGroup
	for w := range 4 {
		id := fmt.Sprintf("kill-%d-%d", os.Getpid(), w)
		wg.Go(func() {
			if _, err := st.Create(ctx, session.Info{ID: id, Cwd: "/"}); err != nil {
				die(err)
			}
			ack(id, 0, 0)
			for seq := uint64(1); ; {
				if _, err := st.StartTurn(ctx, id, json.RawMessage(strconv.FormatUint(seq, 10))); err != nil {
					die(err)
				}
				ack(id, seq, session.KindTurnStart)
				seq++
				for left := 5; left > 0; {
					n := min(w+1, left)
					batch := make([]session.Event, n)
					for i := range batch {
						batch[i] = session.Event{Kind: session.KindUpdate, Data: ackData(id, seq+uint64(i))}
					}
					got, err := st.Append(ctx, id, batch...)
					if last := seq + uint64(n) - 1; err != nil || got != last {
						die(fmt.Errorf("append %d..%d: %d, %v", seq, last, got, err))
					}
					for range n {
						ack(id, seq, session.KindUpdate)
						seq++
					}
					left -= n
				}
				if _, err := st.EndTurn(ctx, id, "end_turn"); err != nil {
					die(err)
				}
				ack(id, seq, session.KindTurnEnd)
				seq++
			}
		})
	}
	wg.Wait()
}
