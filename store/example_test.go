package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/acpgen/acpgen/runtime/session"
	"github.com/acpgen/acpgen/store"
)

// A session recorded by one process is there for the next: the store is
// opened, written and closed, then opened again.
func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	spec := "sqlite:" + filepath.Join(dir, "sessions.db")
	ctx := context.Background()

	st, err := store.Open(ctx, spec, store.Options{})
	if err != nil {
		// Serve without a store, advertising none of the capabilities it backs.
		log.Printf("sessions will not survive a restart: %v", err)
		return
	}
	st.Create(ctx, session.Info{ID: "sess-1", Cwd: "/work", AdditionalDirectories: []string{"/lib"}})
	st.Append(ctx, "sess-1", session.Event{Kind: session.KindUpdate, Data: json.RawMessage(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}`)})
	st.Close()

	st, err = store.Open(ctx, spec, store.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	page, _ := st.List(ctx, session.Query{Cwd: new("/work")})
	for _, s := range page.Sessions {
		fmt.Println(s.ID, s.Cwd, s.AdditionalDirectories, s.LastSeq)
	}
	// Output:
	// sess-1 /work [/lib] 1
}
