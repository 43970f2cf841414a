package session_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/acpgen/acpgen/runtime/session"
)

// An agent records a turn as it streams it, then replays it for a
// session/load.
func Example() {
	ctx := context.Background()
	var st session.Store = session.NewMemory()
	defer st.Close()

	st.Create(ctx, session.Info{ID: "sess-1", Owner: "alice", Cwd: "/work"})
	st.StartTurn(ctx, "sess-1", json.RawMessage(`{"requestId":1}`))
	for _, text := range []string{"Hello", " world"} {
		update := fmt.Sprintf(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":%q}}`, text)
		// Recorded before it is sent: a client never saw what the store lacks.
		st.Append(ctx, "sess-1", session.Event{Kind: session.KindUpdate, Data: json.RawMessage(update)})
	}
	st.EndTurn(ctx, "sess-1", "end_turn")

	s, _ := st.Get(ctx, "sess-1")
	fmt.Println("turn:", s.Turn.State, s.Turn.Reason)
	events, _ := st.Events(ctx, "sess-1", 0, 0)
	for _, e := range events {
		fmt.Println(e.Seq, e.Kind, string(e.Data))
	}
	// Output:
	// turn: ended end_turn
	// 1 turn_start {"requestId":1}
	// 2 update {"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Hello"}}
	// 3 update {"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":" world"}}
	// 4 turn_end "end_turn"
}
