// Command client is an example ACP client built on the generated package
// github.com/acpgen/acpgen/gen/acp. It starts the agent given as its
// arguments, speaks ACP with it over the agent's stdin and stdout, and runs
// one scripted flow, judging each answer by the protocol and printing what
// the agent said:
//
//	initialize          protocol version 1, offering fs/read_text_file and fs/write_text_file
//	                    inside each session's roots (files.go); what the agent advertises
//	session/new         cwd plus additionalDirectories (if advertised, else refused locally by the gate)
//	session/prompt      "hello streamed world", with runtimeContext if advertised (else
//	                    refused locally by the gate): a stop reason, and the text of the
//	                    agent_message_chunk updates streamed before it
//	session/cancel      a second turn, cancelled once the agent has streamed a chunk: its
//	                    answer is a stop reason, not an error ("cancelled" unless the turn
//	                    had ended before the cancel reached the agent)
//	invalid params      a session/prompt whose text block has no text must fail with -32602
//	                    (skipped with -valid-only, for checkers that count any invalid frame)
//	_acpgen/history     if the agent offers it: the turns, recorded without runtimeContext
//	exit                closing the agent's stdin ends it with status 0
//
// With -connect URL it dials an agent served over the network instead
// (runtime/acphttp: -profile websocket or streamable-http, default WebSocket
// first; a token, from -token-file FILE, the ACP_TOKEN environment variable or
// -token, is sent as "Authorization: Bearer TOKEN"), runs the same flow, then
// reconnects:
//
//	session/load        a new connection loads the session: its prompts are replayed
//	                    as user_message_chunk updates, and it takes another turn
//	                    (skipped without a token: a server without Auth makes each
//	                    connection a principal of its own, which cannot reach the
//	                    session another connection created)
//	exit                the connection closes cleanly
//
// A connection cut mid-flow (a network failure, not a close) is resumed by
// the transport (acphttp.Dial): the flow goes on as if nothing happened.
//
// -echo checks the answers of an echoing agent as well, which is how the
// example agents are tested: examples/agent and interop/ts-agent.mjs (the
// official TypeScript SDK's agent side) stream the prompt back word by word
// (after "context: TITLE" lines for runtimeContext), and a turn that says
// "wait" waits for its cancel, so the prompt must come back as sent, the
// cancelled turn end "cancelled" after streaming "before", and a loaded
// session replay both prompts.
//
// Each passed step prints "ok STEP: details" on stdout, a skipped one
// "skip STEP: why"; the first failure
// prints "FAIL STEP: reason" on stderr and exits with status 1. Logs go to
// stderr.
//
// Usage:
//
//	client [-cwd DIR] [-add-dir DIR]... [-timeout 30s] [-valid-only] [-echo] AGENT [ARGS...]
//	client -connect URL [-profile P] [-token-file FILE | -token T] [-cwd DIR] [-add-dir DIR]... [-timeout 30s] [-echo]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/acphttp"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/roots"
	"github.com/acpgen/acpgen/runtime/wire"
)

// Names shared with the example agents.
const (
	rootsMetaKey  = "acpgen/roots"
	historyMethod = "_acpgen/history"
)

// validOnly skips the one deliberately invalid frame of the flow; echo
// checks that the agent echoes as the example agents do.
var validOnly, echo bool

type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	cwd := flag.String("cwd", "", "the session's working directory, absolute (default: the current directory)")
	var addDirs stringList
	flag.Var(&addDirs, "add-dir", "an additional workspace root, absolute; repeatable (default: the parent of -cwd)")
	timeout := flag.Duration("timeout", 30*time.Second, "time limit for the whole flow")
	connect := flag.String("connect", "", "dial an agent served at this URL instead of starting one")
	profile := flag.String("profile", "", "with -connect: websocket or streamable-http (default: WebSocket, falling back to Streamable HTTP)")
	token := flag.String("token", "", "with -connect: send \"Authorization: Bearer TOKEN\" (visible in the process list: prefer -token-file or $"+acphttp.TokenEnv+")")
	tokenFile := flag.String("token-file", "", "with -connect: the token is this file's content (default: $"+acphttp.TokenEnv+")")
	flag.BoolVar(&validOnly, "valid-only", false, "send only valid frames: skip the invalid params step")
	flag.BoolVar(&echo, "echo", false, "the agent echoes as examples/agent does: check the text it streams and that \"wait\" waits for the cancel")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: client [flags] AGENT [ARGS...]\n       client -connect URL [flags]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if (flag.NArg() == 0) == (*connect == "") {
		flag.Usage()
		os.Exit(2)
	}
	if *cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			fail("setup", err)
		}
		*cwd = wd
	}
	if len(addDirs) == 0 {
		addDirs = stringList{filepath.Dir(*cwd)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	var err error
	if *connect != "" {
		o := acphttp.DialOptions{Profile: acphttp.Profile(*profile)}
		tok, err := acphttp.LoadToken(*token, *tokenFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "client:", err)
			os.Exit(2)
		}
		if tok != "" {
			o.Header = http.Header{"Authorization": {"Bearer " + tok}}
		}
		err = runRemote(ctx, *connect, o, *cwd, addDirs)
	} else {
		err = run(ctx, flag.Args(), *cwd, addDirs)
	}
	if err != nil {
		var se *stepError
		if errors.As(err, &se) {
			fail(se.step, se.err)
		}
		fail("setup", err)
	}
}

type stepError struct {
	step string
	err  error
}

func (e *stepError) Error() string { return e.step + ": " + e.err.Error() }

func stepErr(step string, format string, args ...any) error {
	return &stepError{step, fmt.Errorf(format, args...)}
}

func fail(step string, err error) {
	fmt.Fprintf(os.Stderr, "FAIL %s: %v\n", step, err)
	os.Exit(1)
}

func ok(step, format string, args ...any) {
	fmt.Printf("ok %s: %s\n", step, fmt.Sprintf(format, args...))
}

func run(ctx context.Context, agentArgs []string, cwd string, addDirs []string) error {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	cmd := exec.Command(agentArgs[0], agentArgs[1:]...)
	cmd.Stderr = os.Stderr
	toAgent, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	fromAgent, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer cmd.Process.Kill() // no-op once it has exited

	h := newHandler()
	counted := &updateCounter{r: fromAgent, h: h}
	conn := acp.NewClientConn(h, counted, toAgent, acp.ConnOptions{
		RPC: jsonrpc.Options{Logger: log},
		OnDrop: func(method string, err error) {
			log.Warn("dropped inbound notification", "method", method, "err", err)
			if method == acp.MethodSessionUpdate {
				h.handled(nil)
			}
		},
	})
	runDone := make(chan error, 1)
	go func() { runDone <- conn.Run(context.Background()) }()

	if err := flow(ctx, conn, h, cwd, addDirs); err != nil {
		return err
	}

	// Closing the agent's stdin is the end of the conversation: the agent
	// exits, Run sees EOF, and only then may Wait close the pipes.
	toAgent.Close()
	select {
	case err := <-runDone:
		if err != nil {
			return stepErr("exit", "connection: %v", err)
		}
	case <-ctx.Done():
		return stepErr("exit", "agent did not close its stdout after its stdin was closed")
	}
	if err := cmd.Wait(); err != nil {
		return stepErr("exit", "agent: %v", err)
	}
	ok("exit", "agent exited with status 0")
	return nil
}

// remote is one network connection to the agent.
type remote struct {
	conn *acp.ClientConn
	h    *handler
	c    *acphttp.Conn
	done chan error
}

func dialRemote(ctx context.Context, url string, o acphttp.DialOptions, log *slog.Logger) (*remote, error) {
	o.Logger = log
	c, err := acphttp.Dial(ctx, url, o)
	if err != nil {
		return nil, err
	}
	h := newHandler()
	r := &remote{h: h, c: c, done: make(chan error, 1)}
	r.conn = acp.NewClientConn(h, &messageCounter{c, h}, c, acp.ConnOptions{RPC: jsonrpc.Options{Logger: log}})
	go func() { r.done <- r.conn.Run(context.Background()) }()
	return r, nil
}

// close ends the connection and waits for Run.
func (r *remote) close(ctx context.Context) error {
	r.c.Close()
	select {
	case err := <-r.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// runRemote runs the flow over the network, then loads the session on a
// second connection.
func runRemote(ctx context.Context, url string, o acphttp.DialOptions, cwd string, addDirs []string) error {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	r, err := dialRemote(ctx, url, o, log)
	if err != nil {
		return stepErr("connect", "%v", err)
	}
	ok("connect", "profile=%s", r.c.Profile())
	if err := flow(ctx, r.conn, r.h, cwd, addDirs); err != nil {
		return err
	}
	sid := r.h.lastSession
	if err := r.close(ctx); err != nil {
		return stepErr("session/load", "closing the first connection: %v", err)
	}
	if o.Header.Get("Authorization") == "" {
		fmt.Println("skip session/load: without a token a new connection is another principal")
		ok("exit", "connection closed")
		return nil
	}

	r, err = dialRemote(ctx, url, o, log)
	if err != nil {
		return stepErr("session/load", "reconnect: %v", err)
	}
	init, err := r.conn.Initialize(ctx, &acp.InitializeRequest{ProtocolVersion: acp.CurrentProtocolVersion})
	if err != nil {
		return stepErr("session/load", "initialize: %v", err)
	}
	if init.AgentCapabilities == nil || init.AgentCapabilities.LoadSession == nil || !*init.AgentCapabilities.LoadSession {
		if echo {
			return stepErr("session/load", "loadSession not advertised")
		}
		fmt.Println("skip session/load: the agent does not advertise loadSession")
		return closeRemote(ctx, r)
	}
	load := &acp.LoadSessionRequest{SessionID: sid, Cwd: cwd, MCPServers: []acp.MCPServer{}}
	if neg := r.conn.Negotiated(); neg.Allows("agentCapabilities.sessionCapabilities.additionalDirectories") {
		load.AdditionalDirectories = addDirs
	}
	if _, err := r.conn.SessionLoad(ctx, load); err != nil {
		return stepErr("session/load", "%v", err)
	}
	// Over Streamable HTTP the answer to session/load comes on the
	// connection's stream and the replay on the session's: wait for it. v1
	// replays the whole conversation, the prompts and the agent's replies:
	// an echoing agent replays what this flow sent; what another replays is
	// its own business.
	var replay []string
	if echo {
		replay = r.h.awaitReplay(ctx, sid, 2, "hello streamed worldbefore")
		if want := []string{"hello streamed world", "before wait after"}; !slices.Equal(replay, want) {
			return stepErr("session/load", "replayed %q, want %q", replay, want)
		}
	}
	res, err := r.h.prompt(ctx, r.conn, &acp.PromptRequest{SessionID: sid, Prompt: []acp.ContentBlock{acp.NewContentBlockText(acp.TextContent{Text: "again"})}})
	if err != nil {
		return stepErr("session/load", "a turn after loading: %v", err)
	}
	said := strings.Join(r.h.take(sid), "")
	if echo && (res.StopReason != acp.StopReasonEndTurn || said != "again") {
		return stepErr("session/load", "a turn after loading: stopReason %s, streamed %q; want end_turn, \"again\"", res.StopReason, said)
	}
	if echo {
		ok("session/load", "a new connection replayed %d prompts and the replies and took another turn", len(replay))
	} else {
		ok("session/load", "a new connection loaded the session and took another turn: stopReason=%s said=%q", res.StopReason, said)
	}
	return closeRemote(ctx, r)
}

func closeRemote(ctx context.Context, r *remote) error {
	if err := r.close(ctx); err != nil {
		return stepErr("exit", "%v", err)
	}
	ok("exit", "connection closed")
	return nil
}

// messageCounter counts the session/update messages read from a network
// connection before the connection parses them, as updateCounter does for
// lines.
type messageCounter struct {
	*acphttp.Conn
	h *handler
}

func (m *messageCounter) ReadMessage() ([]byte, error) {
	b, err := m.Conn.ReadMessage()
	if err == nil && isUpdate(b) {
		m.h.mu.Lock()
		m.h.seen++
		m.h.mu.Unlock()
	}
	return b, err
}

func newHandler() *handler {
	h := &handler{chunks: map[acp.SessionID][]string{}, user: map[acp.SessionID][]string{}}
	h.cond.L = &h.mu
	return h
}

func flow(ctx context.Context, conn *acp.ClientConn, h *handler, cwd string, addDirs []string) error {
	// initialize
	init, err := conn.Initialize(ctx, &acp.InitializeRequest{
		ProtocolVersion:    acp.CurrentProtocolVersion,
		ClientInfo:         &acp.Implementation{Name: "acpgen-example-client", Version: "0.1.0"},
		ClientCapabilities: &acp.ClientCapabilities{Fs: &acp.FileSystemCapabilities{ReadTextFile: new(true), WriteTextFile: new(true)}},
	})
	if err != nil {
		return stepErr("initialize", "%v", err)
	}
	neg := conn.Negotiated()
	hasDirs := neg.Allows("agentCapabilities.sessionCapabilities.additionalDirectories")
	hasContext := neg.Allows("agentCapabilities.sessionCapabilities.runtimeContext")
	name := "(unnamed)"
	if init.AgentInfo != nil {
		name = init.AgentInfo.Name
	}
	ok("initialize", "protocolVersion=%d agent=%s additionalDirectories=%t runtimeContext=%t", init.ProtocolVersion, name, hasDirs, hasContext)

	// session/new with additional roots. Without the capability, the
	// generated ClientConn refuses to send them: show that, then go without.
	req := &acp.NewSessionRequest{Cwd: cwd, MCPServers: []acp.MCPServer{}, AdditionalDirectories: addDirs}
	req.DedupeAdditionalDirectories()
	if !hasDirs {
		var ge *wire.GateError
		if _, err := conn.SessionNew(ctx, req); !errors.As(err, &ge) {
			return stepErr("session/new", "additionalDirectories without the capability: got %v, want a local gate error", err)
		}
		ok("gate", "additionalDirectories refused locally: %v", ge)
		req.AdditionalDirectories = nil
	}
	set, err := roots.New(req.Cwd, req.AdditionalDirectories)
	if err != nil {
		return stepErr("session/new", "%v", err)
	}
	sess, err := conn.SessionNew(ctx, req)
	if err != nil {
		set.Close()
		return stepErr("session/new", "%v", err)
	}
	h.roots.add(sess.SessionID, set)
	effective := req.EffectiveRoots()
	if raw, found := sess.Meta[rootsMetaKey]; found {
		var echoed []string
		if err := json.Unmarshal(raw, &echoed); err != nil || !slices.Equal(echoed, effective) {
			return stepErr("session/new", "agent reports roots %s, want %q", raw, effective)
		}
	}
	ok("session/new", "sessionId=%s roots=%s", sess.SessionID, strings.Join(effective, ","))
	sid := sess.SessionID
	h.lastSession = sid

	// A turn streamed back word by word, with runtime context when allowed.
	const text = "hello streamed world"
	prompt := &acp.PromptRequest{
		SessionID:      sid,
		Prompt:         []acp.ContentBlock{acp.NewContentBlockText(acp.TextContent{Text: text})},
		RuntimeContext: []acp.RuntimeContextItem{{Title: new("editor"), Text: "open file: main.go, line 12"}},
	}
	if !hasContext {
		var ge *wire.GateError
		if _, err := conn.SessionPrompt(ctx, prompt); !errors.As(err, &ge) {
			return stepErr("session/prompt", "runtimeContext without the capability: got %v, want a local gate error", err)
		}
		ok("gate", "runtimeContext refused locally: %v", ge)
		prompt.RuntimeContext = nil
	}
	res, err := h.prompt(ctx, conn, prompt)
	if err != nil {
		return stepErr("session/prompt", "%v", err)
	}
	// Any stop reason is an answer (the typed call refuses one the schema
	// does not define); an echoing agent streams the prompt back.
	chunks := h.take(sid)
	said := strings.Join(chunks, "")
	want := text
	if hasContext {
		want = "context: editor\n" + text
	}
	if echo && (res.StopReason != acp.StopReasonEndTurn || said != want) {
		return stepErr("session/prompt", "stopReason %s, streamed %q; want end_turn, %q", res.StopReason, said, want)
	}
	ok("session/prompt", "stopReason=%s chunks=%d said=%q", res.StopReason, len(chunks), said)

	// session/cancel mid-turn: "wait" blocks the agent until cancelled.
	first := h.await(sid)
	type result struct {
		res *acp.PromptResponse
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := h.prompt(ctx, conn, &acp.PromptRequest{SessionID: sid, Prompt: []acp.ContentBlock{acp.NewContentBlockText(acp.TextContent{Text: "before wait after"})}})
		done <- result{r, err}
	}()
	var r result
	select {
	case <-first:
		if err := conn.SessionCancel(ctx, &acp.CancelNotification{SessionID: sid}); err != nil {
			return stepErr("session/cancel", "%v", err)
		}
		r = <-done
	case r = <-done: // the turn ended without a chunk: nothing to cancel
	case <-ctx.Done():
		return stepErr("session/cancel", "no chunk before the wait")
	}
	// A cancelled turn is answered with a stop reason, never an error.
	if r.err != nil {
		return stepErr("session/cancel", "%v", r.err)
	}
	said = strings.Join(h.take(sid), "")
	if echo && (r.res.StopReason != acp.StopReasonCancelled || said != "before") {
		return stepErr("session/cancel", "stopReason %s, streamed %q; want cancelled, \"before\"", r.res.StopReason, said)
	}
	ok("session/cancel", "stopReason=%s after streaming %q", r.res.StopReason, said)

	// A malformed request, sent raw since the typed call would refuse it.
	if validOnly {
		return history(ctx, conn, sid)
	}
	bad := fmt.Appendf(nil, `{"sessionId":%q,"prompt":[{"type":"text"}]}`, sid)
	_, err = conn.Send(ctx, acp.MethodSessionPrompt, bad)
	var re *wire.RPCError
	if !errors.As(err, &re) || re.Code != wire.CodeInvalidParams {
		return stepErr("invalid params", "session/prompt without text: got %v, want -32602", err)
	}
	ok("invalid params", "session/prompt without text answered %d", re.Code)
	return history(ctx, conn, sid)
}

// history checks the agent's record of the session, if it offers one.
func history(ctx context.Context, conn *acp.ClientConn, sid acp.SessionID) error {
	var re *wire.RPCError
	raw, err := conn.Send(ctx, historyMethod, fmt.Appendf(nil, `{"sessionId":%q}`, sid))
	if errors.As(err, &re) && re.Code == wire.CodeMethodNotFound {
		ok("history", "not offered by this agent")
		return nil
	}
	if err != nil {
		return stepErr("history", "%v", err)
	}
	var hist struct {
		Turns []json.RawMessage `json:"turns"`
	}
	if err := json.Unmarshal(raw, &hist); err != nil || len(hist.Turns) != 2 {
		return stepErr("history", "got %s, want 2 turns", raw)
	}
	for i, t := range hist.Turns {
		var turn acp.PromptRequest
		if err := turn.UnmarshalJSON(t); err != nil {
			return stepErr("history", "turn %d: %v", i, err)
		}
		if turn.RuntimeContext != nil || bytes.Contains(t, []byte(`"runtimeContext"`)) {
			return stepErr("history", "turn %d was recorded with its runtimeContext: %s", i, t)
		}
	}
	ok("history", "%d turns recorded, none with runtimeContext", len(hist.Turns))
	return nil
}

// handler records the text of agent_message_chunk updates per session.
type handler struct {
	acp.UnimplementedClientHandler

	mu      sync.Mutex
	cond    sync.Cond // signalled when done grows
	seen    int       // session/update frames read from the agent
	done    int       // session/update notifications handled or dropped
	chunks  map[acp.SessionID][]string
	user    map[acp.SessionID][]string // user_message_chunk texts (a session/load replay)
	waiters map[acp.SessionID]chan struct{}

	lastSession acp.SessionID // the flow's session
	roots       sessionRoots  // what fs/* may reach, per session (files.go)
}

func (h *handler) SessionUpdate(ctx context.Context, p *acp.SessionNotification) {
	h.handled(p)
}

// SessionRequestPermission declines: this client runs no tools.
func (h *handler) SessionRequestPermission(ctx context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	return &acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeCancelled(acp.RequestPermissionOutcomeCancelled{})}, nil
}

func (h *handler) handled(p *acp.SessionNotification) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.done++
	h.cond.Broadcast()
	if p == nil {
		return
	}
	if c := p.Update.UserMessageChunk; c != nil && c.Content.Text != nil {
		h.user[p.SessionID] = append(h.user[p.SessionID], c.Content.Text.Text)
	}
	if c := p.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
		h.chunks[p.SessionID] = append(h.chunks[p.SessionID], c.Content.Text.Text)
		if w := h.waiters[p.SessionID]; w != nil {
			close(w)
			delete(h.waiters, p.SessionID)
		}
	}
}

// awaitReplay waits until n user_message_chunk texts and agent_message_chunk
// texts joining to agent arrived for the session (or ctx ends), and returns
// the user texts and takes the agent's.
func (h *handler) awaitReplay(ctx context.Context, id acp.SessionID, n int, agent string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	stop := context.AfterFunc(ctx, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.cond.Broadcast()
	})
	defer stop()
	for (len(h.user[id]) < n || strings.Join(h.chunks[id], "") != agent) && ctx.Err() == nil {
		h.cond.Wait()
	}
	delete(h.chunks, id)
	return h.user[id]
}

// await returns a channel closed by the session's next chunk.
func (h *handler) await(id acp.SessionID) <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.waiters == nil {
		h.waiters = map[acp.SessionID]chan struct{}{}
	}
	w := make(chan struct{})
	h.waiters[id] = w
	return w
}

func (h *handler) take(id acp.SessionID) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.chunks[id]
	delete(h.chunks, id)
	return c
}

// prompt runs a turn and returns once every session/update the agent sent
// before its response has been handled. The generated ClientConn returns the
// response as soon as it is read, while notifications are handled on their
// own goroutine, so without this wait the last chunks may not have been
// handled yet. The agent writes every update before the response, so the
// update frames read by then are exactly the ones to wait for.
func (h *handler) prompt(ctx context.Context, conn *acp.ClientConn, p *acp.PromptRequest) (*acp.PromptResponse, error) {
	res, err := conn.SessionPrompt(ctx, p)
	if err != nil {
		return nil, err
	}
	h.wait(ctx)
	return res, nil
}

func (h *handler) wait(ctx context.Context) {
	h.mu.Lock()
	defer h.mu.Unlock()
	target := h.seen
	stop := context.AfterFunc(ctx, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.cond.Broadcast()
	})
	defer stop()
	for h.done < target && ctx.Err() == nil {
		h.cond.Wait()
	}
}

// updateCounter counts the session/update frames read from the agent, one
// line at a time, before the connection parses them.
type updateCounter struct {
	r       io.Reader
	h       *handler
	partial []byte
}

func (u *updateCounter) Read(p []byte) (int, error) {
	n, err := u.r.Read(p)
	data := p[:n]
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			u.partial = append(u.partial, data...)
			break
		}
		line := data[:i]
		if len(u.partial) > 0 {
			line = append(u.partial, line...)
			u.partial = u.partial[:0]
		}
		if isUpdate(line) {
			u.h.mu.Lock()
			u.h.seen++
			u.h.mu.Unlock()
		}
		data = data[i+1:]
	}
	return n, err
}

func isUpdate(line []byte) bool {
	var m struct {
		ID     *json.RawMessage `json:"id"`
		Method string           `json:"method"`
	}
	return json.Unmarshal(line, &m) == nil && m.ID == nil && m.Method == acp.MethodSessionUpdate
}
