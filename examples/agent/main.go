// Command agent is an example ACP agent built on the generated package
// github.com/acpgen/acpgen/gen/acp. It speaks ACP on stdin and stdout and logs
// to stderr.
//
// Each prompt turn streams the prompt's words back as agent_message_chunk
// updates and ends with stopReason end_turn. The word "wait" blocks the turn
// until the client sends session/cancel, which then ends it with stopReason
// cancelled (the generated AgentConn does that conversion). It also shows the
// two RFD overlays this repository generates with:
//
//   - additionalDirectories: advertised; a session's roots are
//     NewSessionRequest.EffectiveRoots(), returned in the session/new
//     response's _meta under "acpgen/roots".
//   - runtimeContext: advertised; a turn that carries it first streams one
//     chunk naming its items, and the turn is recorded without it
//     (PromptRequest.ForHistory), which the extension method
//     "_acpgen/history" returns.
//
// The interop tests drive this binary from the official TypeScript SDK and
// from examples/client.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/acpgen/acpgen/gen/acp"
)

// Names shared with the interop harness.
const (
	rootsMetaKey  = "acpgen/roots"
	historyMethod = "_acpgen/history"
	waitWord      = "wait"
)

type session struct {
	roots   []string
	history []acp.PromptRequest // as recorded for replay: no runtimeContext
}

type agent struct {
	acp.UnimplementedAgentHandler
	conn *acp.AgentConn
	log  *slog.Logger

	mu       sync.Mutex
	next     int
	sessions map[acp.SessionID]*session
}

func (a *agent) Initialize(ctx context.Context, p *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	title := "acpgen example agent"
	return &acp.InitializeResponse{
		ProtocolVersion: acp.CurrentProtocolVersion,
		AgentInfo:       &acp.Implementation{Name: "acpgen-example-agent", Title: &title, Version: "0.1.0"},
		AgentCapabilities: &acp.AgentCapabilities{
			SessionCapabilities: &acp.SessionCapabilities{
				AdditionalDirectories: &acp.SessionAdditionalDirectoriesCapabilities{},
				RuntimeContext:        &acp.SessionRuntimeContextCapabilities{},
			},
		},
	}, nil
}

func (a *agent) SessionNew(ctx context.Context, p *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	// The dispatcher has already refused relative, empty or null roots
	// (-32602), so every root here is an absolute path.
	roots := p.EffectiveRoots()
	rootsJSON, err := json.Marshal(roots)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.next++
	id := acp.SessionID(fmt.Sprintf("sess-%d", a.next))
	a.sessions[id] = &session{roots: roots}
	a.mu.Unlock()
	a.log.Info("session created", "sessionId", id, "roots", roots)
	return &acp.NewSessionResponse{
		SessionID: id,
		Meta:      map[string]acp.Raw{rootsMetaKey: rootsJSON},
	}, nil
}

func (a *agent) session(id acp.SessionID) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.sessions[id]
	if s == nil {
		return nil, acp.NewResourceNotFoundError(map[string]any{"sessionId": id})
	}
	return s, nil
}

func (a *agent) SessionPrompt(ctx context.Context, p *acp.PromptRequest) (*acp.PromptResponse, error) {
	s, err := a.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	s.history = append(s.history, p.ForHistory())
	a.mu.Unlock()

	if len(p.RuntimeContext) > 0 {
		titles := make([]string, len(p.RuntimeContext))
		for i, item := range p.RuntimeContext {
			titles[i] = "untitled"
			if item.Title != nil {
				titles[i] = *item.Title
			}
		}
		// A real agent would put the items' text into this turn's model prompt.
		if err := a.chunk(ctx, p.SessionID, "context: "+strings.Join(titles, ", ")+"\n"); err != nil {
			return nil, err
		}
	}
	sep := ""
	for _, b := range p.Prompt {
		if b.Text == nil {
			continue // only text is advertised; other kinds never pass the gates
		}
		for _, w := range strings.Fields(b.Text.Text) {
			if w == waitWord {
				// A long-running step: the turn's context ends on session/cancel.
				<-ctx.Done()
				return nil, ctx.Err()
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if err := a.chunk(ctx, p.SessionID, sep+w); err != nil {
				return nil, err
			}
			sep = " "
		}
	}
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

func (a *agent) chunk(ctx context.Context, id acp.SessionID, text string) error {
	return a.conn.SessionUpdate(ctx, &acp.SessionNotification{SessionID: id, Update: acp.AgentMessageChunkText(text)})
}

func (a *agent) SessionCancel(ctx context.Context, p *acp.CancelNotification) {
	// AgentConn has already cancelled the turn's context; this is for bookkeeping.
	a.log.Info("turn cancelled", "sessionId", p.SessionID)
}

// ExtRequest serves "_acpgen/history": the session's turns as recorded.
func (a *agent) ExtRequest(ctx context.Context, method string, params acp.Raw) (acp.Raw, error) {
	if method != historyMethod {
		return nil, acp.NewError(acp.ErrorCodeMethodNotFound, "Method not found: "+method, nil)
	}
	var q struct {
		SessionID acp.SessionID `json:"sessionId"`
	}
	if err := json.Unmarshal(params, &q); err != nil || q.SessionID == "" {
		return nil, acp.NewError(acp.ErrorCodeInvalidParams, `Invalid params: want {"sessionId": string}`, nil)
	}
	s, err := a.session(q.SessionID)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	b := []byte(`{"turns":[`)
	for i := range s.history {
		if i > 0 {
			b = append(b, ',')
		}
		b = s.history[i].AppendJSON(b)
	}
	return append(b, "]}"...), nil
}

func (a *agent) ExtNotification(ctx context.Context, method string, params acp.Raw) {
	a.log.Info("extension notification ignored", "method", method)
}

func main() {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if os.Getenv("ACPGEN_EXAMPLE_DEBUG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, log, os.Stdin, os.Stdout); err != nil && ctx.Err() == nil {
		log.Error("connection failed", "err", err)
		os.Exit(1)
	}
}
