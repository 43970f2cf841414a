// Package storeagent is an example agent whose sessions live in a session
// store (runtime/session): they survive the connection, and with a durable
// store the process and the machine. store/examples/agent runs it with
// -store memory|sqlite:FILE|postgres://..., on v1 or the v2 draft by the
// version the client's initialize asks for (Serve).
//
// Both versions share one runtime/session.Host: the store, who may reach a
// session (another principal's is answered as an unknown one, -32002), the
// turns this process runs, and the lifecycle (create, reopen, replay, close,
// delete, fork, list). Each prompt turn echoes the prompt's words as agent
// message chunks; the word "wait" holds the turn until session/cancel or
// session/close. Every update the agent sends is recorded before it is
// written, the user's prompt included: the connection writes behind
// (session.BatchRecorder), so the updates sent during one commit share the
// next, and a turn's end is recorded once its updates are (FlushFrom).
//
// v1 (v1.go, on gen/acp/unstable): session/load replays every recorded
// update, then answers; session/resume restores without replay;
// session/close cancels the running turn and keeps the record;
// session/delete removes it; session/fork copies the record into a new
// session; session/list pages through the caller's sessions. The load and
// resume answers carry the session's turn state in _meta["acp/turnState"]
// (see TurnState), so a client that lost a turn to a dead process learns
// how it ended.
//
// v2 (v2.go, on gen/acp/v2/unstable): session/resume with replayFrom
// {"type":"start"} replays the recorded messages, then sends a state_update
// (a turn a dead process left ends idle with stopReason error), then
// answers; without replayFrom it replays nothing. close, delete, fork and
// list as in v1. Served over runtime/acphttp, ResumeState (the server's
// Options.ResumeState) tells a v2 client that resumed a transport stream
// each of its sessions' state after the replay.
//
// Without a store (New given nil) sessions live in memory and none of the
// store's capabilities is advertised.
package storeagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/acpgen/acpgen/runtime/acphttp"
	"github.com/acpgen/acpgen/runtime/router"
	"github.com/acpgen/acpgen/runtime/session"
)

// TurnStateKey is the _meta member of the load and resume answers that
// says how the session's last turn stands.
const TurnStateKey = "acp/turnState"

// InterruptedReason is the reason recorded for a turn whose process died
// before it ended, found running by a later load or resume.
const InterruptedReason = session.InterruptedReason

// Agent holds what every connection of one process shares.
type Agent struct {
	*session.Host
	log *slog.Logger

	mu sync.Mutex
	v2 map[*acphttp.Conn]*connV2 // the v2 connections served over acphttp, for ResumeState
}

// New returns an agent over st, which it records into; a nil st (the store
// could not be opened) serves sessions in memory and advertises none of the
// store's capabilities.
func New(st session.Store, log *slog.Logger) *Agent {
	return &Agent{Host: session.NewHost(st), log: log, v2: map[*acphttp.Conn]*connV2{}}
}

// Serve runs one connection: runtime/router reads it until initialize and
// hands it to the v1 agent or the v2 one by the requested protocol version.
// A client that leaves before initialize is not an error.
func (a *Agent) Serve(ctx context.Context, r io.Reader, w io.Writer, log *slog.Logger) error {
	err := router.New().
		Handle(1, func(ctx context.Context, r io.Reader, w io.Writer) error { return a.Connect(r, w, log).Run(ctx) }).
		Handle(2, func(ctx context.Context, r io.Reader, w io.Writer) error { return a.ServeV2(ctx, r, w, log) }).
		ServeConn(ctx, r, w)
	if errors.Is(err, router.ErrClosed) {
		return nil
	}
	return err
}

// ProtocolKey is the member of a stored session's _meta that names the ACP
// major version it was created with. Its log holds that version's updates,
// so only that version loads, resumes, forks or prompts it; a session stored
// without it is v1's.
const ProtocolKey = "acpgen/protocolVersion"

func protocolMeta(v int) json.RawMessage { return fmt.Appendf(nil, `{%q:%d}`, ProtocolKey, v) }

// VersionError answers a request of one ACP version for a session of
// another (-32602 in both versions).
type VersionError struct{ Session, Want int }

func (e *VersionError) Error() string {
	return fmt.Sprintf("the session was created with ACP version %d; this connection speaks version %d", e.Session, e.Want)
}

// own returns the caller's session (session.ErrNotFound for an unknown one
// or another principal's) when it was created with ACP version v, a
// *VersionError otherwise.
func (a *Agent) own(ctx context.Context, id string, v int) (session.Session, error) {
	s, err := a.Get(ctx, acphttp.PrincipalFrom(ctx), id)
	if err != nil {
		return s, err
	}
	return s, checkVersion(s, v)
}

// checkVersion returns a *VersionError unless s was created with ACP
// version v.
func checkVersion(s session.Session, v int) error {
	var m map[string]json.RawMessage
	json.Unmarshal(s.Meta, &m)
	got := 1
	json.Unmarshal(m[ProtocolKey], &got)
	if got != v {
		return &VersionError{Session: got, Want: v}
	}
	return nil
}

// TurnState is the value of _meta["acp/turnState"] on the load and resume
// answers: State "none" (no turn yet), "running" (a turn of this process),
// "idle" (ended, with StopReason) or "interrupted" (its process ended
// before it did, with Reason).
type TurnState struct {
	State      string `json:"state"`
	StopReason string `json:"stopReason,omitempty"`
	Reason     string `json:"reason,omitempty"`
}

// TurnStateOf is the turn state of a stored turn.
func TurnStateOf(t session.Turn) TurnState {
	switch t.State {
	case session.TurnRunning:
		return TurnState{State: "running"}
	case session.TurnEnded:
		return TurnState{State: "idle", StopReason: t.Reason}
	case session.TurnInterrupted:
		return TurnState{State: "interrupted", Reason: t.Reason}
	}
	return TurnState{State: "none"}
}
