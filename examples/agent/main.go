// Command agent is an example ACP agent built on the generated package
// github.com/acpgen/acpgen/gen/acp. It speaks ACP on stdin and stdout and logs
// to stderr. A client whose initialize asks for protocol version 2 gets the
// agent on the v2 draft instead (v2.go): runtime/router picks the version.
//
// Each prompt turn streams the prompt's words back as agent_message_chunk
// updates and ends with stopReason end_turn. The word "terminal" runs `pwd`
// in a terminal of the client when the client offers terminals, and streams
// the outcome in its place (terminal.go). The word "wait" blocks the turn
// until the client sends session/cancel, which then ends it with stopReason
// cancelled (the generated AgentConn does that conversion). It also shows the
// two RFD overlays this repository generates with:
//
//   - additionalDirectories: advertised; a session's roots are
//     NewSessionRequest.EffectiveRoots(), returned in the session/new
//     response's _meta under "acpgen/roots"; session/list (advertised)
//     lists them and filters with ListSessionsRequest.Matches.
//   - runtimeContext: advertised; a turn that carries it first streams one
//     chunk naming its items, and the turn is recorded without it
//     (PromptRequest.ForHistory), which the extension method
//     "_acpgen/history" returns.
//
// Sessions outlive a connection: session/load (advertised) replays a
// session's whole conversation on whichever connection loads it: the
// prompts as user_message_chunk updates, the agent's replies as
// agent_message_chunk updates, in the order they were sent.
//
// With -listen ADDR it serves ACP over the network instead, at /acp, in both
// profiles (WebSocket and Streamable HTTP, on HTTP/1.1 and h2c), printing
// "listening on http://ADDR/acp" once it accepts connections; a token makes
// every request need "Authorization: Bearer TOKEN": -token-file FILE (its
// content), the ACP_TOKEN environment variable, or -token (which every user
// of the machine can read in the process list). Without a token it serves
// loopback addresses only, and each connection is a principal of its own.
// Requests must name the server by a loopback name unless -allow-host lists
// others. Each transport connection is routed like stdio, to v1 or v2, and
// gets its own AgentConn; the v1 sessions are shared, and a session is only
// reachable by the principal that created it (so a reconnect that loads one
// needs -token); another principal's session is answered as an unknown one.
// A v2 agent's sessions belong to its connection. Session ids are 128 random
// bits.
//
// On SIGTERM or SIGINT the agent drains, on stdio and over the network: a
// request sent from then on is answered -32001 "Server shutting down" (a new
// network connection gets 503), the requests and v2 turns in flight have
// drainGrace (10 s) to finish, then are cancelled (a prompt answers
// stopReason cancelled; a v2 turn reports idle with stopReason cancelled),
// and the agent exits once the answers are written.
//
// The interop tests drive this binary from the official TypeScript SDK and
// from examples/client.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/acphttp"
)

// Names shared with the interop harness.
const (
	rootsMetaKey  = "acpgen/roots"
	historyMethod = "_acpgen/history"
	waitWord      = "wait"
)

type session struct {
	owner   string // the principal that created it (acphttp.PrincipalFrom)
	roots   []string
	history []acp.PromptRequest // as recorded for replay: no runtimeContext; bounded (record)
	// historyBytes is the JSON size of history, bounded by maxHistoryBytes.
	historyBytes int
	// conversation is what session/load replays: the user's prompts and the
	// agent's replies, as the updates that carry them, in order; bounded
	// (said).
	conversation      []acp.SessionUpdate
	conversationBytes int
}

// store holds the sessions of every connection.
type store struct {
	mu       sync.Mutex
	order    []acp.SessionID // oldest first
	sessions map[acp.SessionID]*session
}

// agent serves one connection.
type agent struct {
	acp.UnimplementedAgentHandler
	*store
	conn *acp.AgentConn
	log  *slog.Logger
}

var loadSession = true

func (a *agent) Initialize(ctx context.Context, p *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	title := "acpgen example agent"
	return &acp.InitializeResponse{
		ProtocolVersion: acp.CurrentProtocolVersion,
		AgentInfo:       &acp.Implementation{Name: "acpgen-example-agent", Title: &title, Version: "0.1.0"},
		AgentCapabilities: &acp.AgentCapabilities{
			LoadSession: &loadSession,
			SessionCapabilities: &acp.SessionCapabilities{
				List:                  &acp.SessionListCapabilities{},
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
	id := acp.SessionID(newSessionID())
	a.mu.Lock()
	a.order = append(a.order, id)
	a.sessions[id] = &session{owner: acphttp.PrincipalFrom(ctx), roots: roots}
	a.mu.Unlock()
	a.log.Info("session created", "sessionId", id, "roots", roots)
	return &acp.NewSessionResponse{
		SessionID: id,
		Meta:      map[string]acp.Raw{rootsMetaKey: rootsJSON},
	}, nil
}

// SessionList lists the caller's sessions, oldest first, that pass the
// request's filters; everything fits one page.
func (a *agent) SessionList(ctx context.Context, p *acp.ListSessionsRequest) (*acp.ListSessionsResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := &acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}
	for _, id := range a.order {
		s := a.sessions[id]
		if s == nil || s.owner != acphttp.PrincipalFrom(ctx) {
			continue
		}
		// The capability is advertised, so the list is always present.
		info := acp.SessionInfo{SessionID: id, Cwd: s.roots[0], AdditionalDirectories: append([]string{}, s.roots[1:]...)}
		if p.Matches(&info) {
			out.Sessions = append(out.Sessions, info)
		}
	}
	return out, nil
}

// newSessionID returns "sess-" and 128 random bits in hex: a session id
// another client cannot guess or count its way to.
func newSessionID() string {
	var b [16]byte
	rand.Read(b[:])
	return "sess-" + hex.EncodeToString(b[:])
}

// session returns the caller's session id; another principal's is answered
// exactly as an unknown one, so that ids cannot be probed.
func (a *agent) session(ctx context.Context, id acp.SessionID) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.sessions[id]
	if s == nil || s.owner != acphttp.PrincipalFrom(ctx) {
		return nil, acp.NewResourceNotFoundError(map[string]any{"sessionId": id})
	}
	return s, nil
}

func (a *agent) SessionPrompt(ctx context.Context, p *acp.PromptRequest) (*acp.PromptResponse, error) {
	s, err := a.session(ctx, p.SessionID)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	s.record(p.ForHistory())
	for _, b := range p.Prompt {
		if b.Text != nil {
			s.said(acp.UserMessageChunkText(b.Text.Text))
		}
	}
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
			if w == terminalWord {
				if w, err = a.terminal(ctx, p.SessionID); err != nil {
					return nil, err
				}
			}
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

// SessionLoad replays the whole conversation, as v1 requires: each prompt's
// text blocks as user_message_chunk, the agent's replies as
// agent_message_chunk, in the order they were sent, before answering.
func (a *agent) SessionLoad(ctx context.Context, p *acp.LoadSessionRequest) (*acp.LoadSessionResponse, error) {
	s, err := a.session(ctx, p.SessionID)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	replay := slices.Clone(s.conversation)
	a.mu.Unlock()
	for _, u := range replay {
		if err := a.conn.SessionUpdate(ctx, &acp.SessionNotification{SessionID: p.SessionID, Update: u}); err != nil {
			return nil, err
		}
	}
	a.log.Info("session loaded", "sessionId", p.SessionID, "replayed", len(replay))
	return &acp.LoadSessionResponse{}, nil
}

// chunk sends an agent_message_chunk and records it in the conversation.
func (a *agent) chunk(ctx context.Context, id acp.SessionID, text string) error {
	u := acp.AgentMessageChunkText(text)
	a.mu.Lock()
	if s := a.sessions[id]; s != nil {
		s.said(u)
	}
	a.mu.Unlock()
	return a.conn.SessionUpdate(ctx, &acp.SessionNotification{SessionID: id, Update: u})
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
	s, err := a.session(ctx, q.SessionID)
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
	listen := flag.String("listen", "", "serve ACP over the network at http://ADDR/acp instead of stdio")
	token := flag.String("token", "", "with -listen: require \"Authorization: Bearer TOKEN\" (visible in the process list: prefer -token-file or $"+acphttp.TokenEnv+")")
	tokenFile := flag.String("token-file", "", "with -listen: the token is this file's content (default: $"+acphttp.TokenEnv+")")
	var hosts []string
	flag.Func("allow-host", "with -listen: accept requests naming the server HOST or HOST:PORT (repeatable; default loopback names only)", func(h string) error {
		hosts = append(hosts, h)
		return nil
	})
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if os.Getenv("ACPGEN_EXAMPLE_DEBUG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	st := &store{sessions: map[acp.SessionID]*session{}}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *listen != "" {
		tok, err := acphttp.LoadToken(*token, *tokenFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "agent:", err)
			os.Exit(2)
		}
		if err := listenAndServe(ctx, *listen, tok, hosts, st, log); err != nil {
			log.Error("server failed", "err", err)
			os.Exit(1)
		}
		return
	}
	if err := serveDrained(ctx, drainGrace, st, log, os.Stdin, os.Stdout); err != nil {
		log.Error("connection failed", "err", err)
		os.Exit(1)
	}
}

// listenAndServe serves the agent over both network profiles at /acp until
// ctx ends, then shuts down gracefully. Each transport connection is routed
// like a stdio one: to the v1 agent or the v2 one by its initialize.
func listenAndServe(ctx context.Context, addr, token string, hosts []string, st *store, log *slog.Logger) error {
	o := acphttp.Options{Logger: log, AllowedHosts: hosts}
	if token != "" {
		o.Auth = acphttp.BearerToken(token)
	}
	srv := acphttp.NewServer(func(ctx context.Context, c *acphttp.Conn) error {
		return serveConn(ctx, st, log.With("connection", c.ID(), "profile", c.Profile()), c, c)
	}, o)
	return acphttp.ListenAndServe(ctx, addr, srv, acphttp.ServeOptions{
		Listening:    func(a net.Addr) { fmt.Printf("listening on http://%s/acp\n", a) },
		DrainTimeout: drainGrace,
	})
}
