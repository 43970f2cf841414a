package acp_test

// Hand-written tests of the generated API's ergonomics and safety: union
// Kind and Value, encoding errors, forward-compatible unknown variants,
// error codes, the package doc, handler typos, the text shortcuts and the
// other short constructors.

import (
	"context"
	"encoding/json"
	"errors"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/internal/corpus"
	"github.com/acpgen/acpgen/internal/pinned"
	"github.com/acpgen/acpgen/runtime/wire"
)

func TestUnionKind(t *testing.T) {
	if k := acp.TextBlock("hi").Kind(); k != acp.ContentBlockKindText || string(k) != "text" {
		t.Fatalf("text block kind %q", k)
	}
	if k := (acp.ContentBlock{}).Kind(); k != "" {
		t.Fatalf("empty block kind %q", k)
	}
	u := acp.AgentMessageChunkText("x")
	switch u.Kind() {
	case acp.SessionUpdateKindAgentMessageChunk:
	default:
		t.Fatalf("update kind %q", u.Kind())
	}
	if k := acp.NewRequestPermissionOutcomeCancelled(acp.RequestPermissionOutcomeCancelled{}).Kind(); k != acp.RequestPermissionOutcomeKindCancelled {
		t.Fatalf("outcome kind %q", k)
	}
	// A union with an untagged variant: an enumeration of variants.
	s := acp.NewMCPServerStdio(acp.MCPServerStdio{Name: "fs", Command: "/bin/fs", Args: []string{}, Env: []acp.EnvVariable{}})
	if s.Kind() != acp.MCPServerKindStdio || s.Kind().String() != "Stdio" {
		t.Fatalf("mcp server kind %v", s.Kind())
	}
	if (acp.MCPServer{}).Kind() != 0 {
		t.Fatal("empty MCPServer has a kind")
	}
	// An unknown kind reports the tag as received.
	var n acp.SessionUpdate
	if err := json.Unmarshal([]byte(`{"sessionUpdate":"hologram","x":1}`), &n); err != nil {
		t.Fatal(err)
	}
	if n.Kind() != "hologram" {
		t.Fatalf("unknown kind %q", n.Kind())
	}
}

func TestUnionValue(t *testing.T) {
	// A type switch on the set variant's payload.
	describe := func(b acp.ContentBlock) string {
		switch x := b.Value().(type) {
		case *acp.TextContent:
			return "text " + x.Text
		case *acp.ImageContent:
			return "image " + x.MimeType
		case *wire.UnknownVariant:
			return "unknown " + x.Tag
		case nil:
			return "none"
		}
		return "other"
	}
	var unknown acp.ContentBlock
	if err := json.Unmarshal([]byte(`{"type":"hologram","x":1}`), &unknown); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		b    acp.ContentBlock
		want string
	}{
		{acp.TextBlock("hi"), "text hi"},
		{acp.NewContentBlockImage(acp.ImageContent{Data: "aGk=", MimeType: "image/png"}), "image image/png"},
		{unknown, "unknown hologram"},
		{acp.ContentBlock{}, "none"},
	} {
		if got := describe(c.b); got != c.want {
			t.Errorf("Value of %v: %s, want %s", c.b.Kind(), got, c.want)
		}
	}
	// The payload is the variant's own pointer, not a copy.
	u := acp.AgentMessageChunkText("x")
	if p, ok := u.Value().(*acp.ContentChunk); !ok || p != u.AgentMessageChunk {
		t.Fatalf("session update value %T", u.Value())
	}
	// A value union: the pointer to the scalar, or the slice.
	n := int64(3)
	if p, ok := acp.NewElicitationContentValueInteger(n).Value().(*int64); !ok || *p != 3 {
		t.Fatalf("integer value %v", p)
	}
	if s, ok := acp.NewElicitationContentValueStringArray([]string{"a"}).Value().([]string); !ok || len(s) != 1 {
		t.Fatalf("string array value %v", s)
	}
	// A union with an untagged variant.
	if _, ok := acp.NewMCPServerStdio(acp.MCPServerStdio{Name: "fs", Command: "/bin/fs"}).Value().(*acp.MCPServerStdio); !ok {
		t.Fatal("mcp server value")
	}
}

func TestMarshalRefusesEmptyOrAmbiguousUnion(t *testing.T) {
	var ee *wire.EncodeError
	_, err := json.Marshal(acp.SessionUpdate{})
	if !errors.As(err, &ee) || !strings.Contains(err.Error(), "no variant of SessionUpdate is set") || !strings.Contains(err.Error(), "AgentMessageChunk") {
		t.Fatalf("empty union: %v", err)
	}
	two := acp.TextBlock("a")
	two.Image = &acp.ImageContent{Data: "aGk=", MimeType: "image/png"}
	_, err = json.Marshal(two)
	if !errors.As(err, &ee) || !strings.Contains(err.Error(), "more than one variant of ContentBlock is set (Text, Image)") {
		t.Fatalf("two variants: %v", err)
	}
	// Nested too: the union inside a message.
	_, err = json.Marshal(acp.SessionNotification{SessionID: "s"})
	if !errors.As(err, &ee) || ee.Violations[0].Pointer != "/update" {
		t.Fatalf("nested empty union: %v", err)
	}
	// Everything else still encodes: MarshalJSON is not Validate.
	b, err := json.Marshal(acp.NewContentBlockResourceLink(acp.ResourceLink{Name: "a", URI: "not a uri"}))
	if err != nil || !strings.Contains(string(b), `"not a uri"`) {
		t.Fatalf("valid-shaped value refused: %s %v", b, err)
	}
}

func TestUnknownVariantForwardCompatible(t *testing.T) {
	cases := []struct{ name, in, member string }{
		{"SessionUpdate", `{"sessionUpdate":"hologram","content":{"type":"text","text":"x"},"_meta":{"k":1}}`, "/sessionUpdate"},
		{"ContentBlock", `{"type":"video","uri":"file:///v.mp4","x":[1,2]}`, "/type"},
		{"ToolCallContent", `{"type":"screenshot","data":"aGk="}`, "/type"},
		{"RequestPermissionOutcome", `{"outcome":"deferred","until":"later"}`, "/outcome"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var v interface {
				any
				Validate() error
			}
			var unknown func() *wire.UnknownVariant
			switch c.name {
			case "SessionUpdate":
				x := new(acp.SessionUpdate)
				v, unknown = x, func() *wire.UnknownVariant { return x.Unknown }
			case "ContentBlock":
				x := new(acp.ContentBlock)
				v, unknown = x, func() *wire.UnknownVariant { return x.Unknown }
			case "ToolCallContent":
				x := new(acp.ToolCallContent)
				v, unknown = x, func() *wire.UnknownVariant { return x.Unknown }
			case "RequestPermissionOutcome":
				x := new(acp.RequestPermissionOutcome)
				v, unknown = x, func() *wire.UnknownVariant { return x.Unknown }
			}
			if err := decode([]byte(c.in), v, wire.Strict); err == nil {
				t.Fatal("strict decoding accepted an unknown tag")
			}
			out := roundTrip(t, c.in, v, wire.Lenient) // every member re-encoded
			if unknown() == nil || unknown().Tag == "" {
				t.Fatalf("unknown variant not kept: %s", out)
			}
			err := v.Validate()
			var ve *wire.ValidationError
			if !errors.As(err, &ve) || ve.Violations[0].Pointer != c.member || !strings.Contains(err.Error(), "unknown") {
				t.Fatalf("Validate of an unknown variant: %v", err)
			}
		})
	}
}

// The dispatcher: a lenient client receives a newer agent's update kind; a
// strict one drops it; nobody sends one.
func TestUnknownUpdateKindReachesLenientHandler(t *testing.T) {
	frame := `{"sessionId":"s","update":{"sessionUpdate":"hologram","content":{"type":"text","text":"x"}}}`
	for _, strict := range []bool{false, true} {
		got := make(chan *acp.SessionNotification, 1)
		dropped := make(chan error, 1)
		cl := &updateClient{got: got}
		a := &plainAgent{}
		cc, stop := connect(t, a, cl, acp.ConnOptions{Strict: strict, OnDrop: func(m string, err error) { dropped <- err }})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if _, err := cc.Initialize(ctx, &acp.InitializeRequest{}); err != nil {
			t.Fatal(err)
		}
		if err := a.conn.SendNotification(ctx, acp.MethodSessionUpdate, wire.Raw(frame)); err != nil {
			t.Fatal(err)
		}
		select {
		case n := <-got:
			if strict || n.Update.Kind() != "hologram" || n.Update.Unknown == nil {
				t.Fatalf("strict=%v: handler got %+v", strict, n.Update)
			}
		case err := <-dropped:
			if !strict {
				t.Fatalf("lenient client dropped a newer update kind: %v", err)
			}
		case <-ctx.Done():
			t.Fatal("no verdict")
		}
		// Sending one is refused locally.
		u := acp.SessionNotification{SessionID: "s", Update: acp.SessionUpdate{Unknown: &wire.UnknownVariant{Tag: "hologram"}}}
		var le *acp.LocalError
		if err := a.conn.SessionUpdate(ctx, &u); !errors.As(err, &le) || !strings.Contains(err.Error(), `unknown sessionUpdate "hologram"`) {
			t.Fatalf("unknown kind sent: %v", err)
		}
		cancel()
		stop()
	}
}

// An agent's own invalid update is its bug: its handler gets a *LocalError
// and the client is answered -32603, never -32602 invalid params.
func TestOutboundBugIsReportedLocally(t *testing.T) {
	a := &plainAgent{badUpdate: true, errs: make(chan error, 1)}
	cc, stop := connect(t, a, &updateClient{got: make(chan *acp.SessionNotification, 1)}, acp.ConnOptions{})
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := cc.Initialize(ctx, &acp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	_, err := cc.SessionPrompt(ctx, &acp.PromptRequest{SessionID: "s", Prompt: []acp.ContentBlock{acp.TextBlock("go")}})
	var re *acp.RPCError
	if !errors.As(err, &re) || re.Code != wire.CodeInternalError || strings.Contains(re.Message, "Invalid params") {
		t.Fatalf("peer answered %v, want -32603", err)
	}
	herr := <-a.errs
	var le *acp.LocalError
	var ve *acp.ValidationError
	if !errors.As(herr, &le) || !errors.As(herr, &ve) || le.Method != acp.MethodSessionUpdate {
		t.Fatalf("handler got %T %v, want *acp.LocalError wrapping the violations", herr, herr)
	}
	if !strings.Contains(herr.Error(), "no variant of SessionUpdate is set") {
		t.Fatalf("error does not name the union: %v", herr)
	}
}

func TestErrorConstructors(t *testing.T) {
	for _, c := range []struct {
		e    *acp.RPCError
		code acp.ErrorCode
		want int
	}{
		{acp.NewParseError(nil), acp.ErrorCodeParseError, -32700},
		{acp.NewInvalidRequestError(nil), acp.ErrorCodeInvalidRequest, -32600},
		{acp.NewMethodNotFoundError(nil), acp.ErrorCodeMethodNotFound, -32601},
		{acp.NewInvalidParamsError(nil), acp.ErrorCodeInvalidParams, -32602},
		{acp.NewInternalError(nil), acp.ErrorCodeInternalError, -32603},
		{acp.NewAuthenticationRequiredError(nil), acp.ErrorCodeAuthenticationRequired, -32000},
		{acp.NewResourceNotFoundError(map[string]any{"sessionId": "s"}), acp.ErrorCodeResourceNotFound, -32002},
		{acp.NewRequestCancelledError(nil), acp.ErrorCodeRequestCancelled, -32800},
	} {
		if int(c.e.Code) != c.want || int(c.code) != c.want || c.e.Message == "" {
			t.Errorf("%+v: want code %d", c.e, c.want)
		}
	}
	if e := acp.NewResourceNotFoundError("x"); e.Code != wire.ErrorCode(acp.ErrorCodeResourceNotFound) || e.Message != "Resource not found" || e.Data != "x" {
		t.Fatalf("resource not found: %+v", e)
	}
	if e := acp.NewError(acp.ErrorCodeInvalidParams, "bad", nil); e.Code != wire.CodeInvalidParams || e.Message != "bad" {
		t.Fatalf("NewError: %+v", e)
	}
}

// The package comment is in exactly one file, and no comment in the
// package is a /* */ block (go doc would show it as code).
func TestPackageDoc(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	docs := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil {
			t.Fatal(err)
		}
		if f.Doc != nil {
			docs++
			if !strings.HasPrefix(f.Doc.Text(), "Package acp ") {
				t.Errorf("%s: package comment %q", name, f.Doc.Text())
			}
		}
		src, err := fs.ReadFile(os.DirFS("."), name)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(src), "\n/*") || strings.Contains(string(src), "\t/*") {
			t.Errorf("%s has a /* */ comment", name)
		}
	}
	if docs != 1 {
		t.Fatalf("%d files carry the package comment, want 1", docs)
	}
}

// typoAgent mistypes SessionPrompt.
type typoAgent struct {
	acp.UnimplementedAgentHandler
}

func (typoAgent) SessionPromt(ctx context.Context, p *acp.PromptRequest) (*acp.PromptResponse, error) {
	return nil, nil
}

// wrongName takes session/prompt's params under another name.
type wrongName struct{ acp.UnimplementedAgentHandler }

func (wrongName) Prompt(ctx context.Context, p *acp.PromptRequest) (*acp.PromptResponse, error) {
	return nil, nil
}

// helperAgent has exported methods that are not handler-like.
type helperAgent struct{ acp.UnimplementedAgentHandler }

func (helperAgent) Sessions() int                                      { return 0 }
func (helperAgent) Stream(ctx context.Context, id acp.SessionID) error { return nil }

func TestHandlerTypos(t *testing.T) {
	err := acp.CheckAgentHandler(typoAgent{})
	if err == nil || !strings.Contains(err.Error(), "SessionPromt") || !strings.Contains(err.Error(), "did you mean SessionPrompt?") {
		t.Fatalf("typo: %v", err)
	}
	if err := acp.CheckAgentHandler(wrongName{}); err == nil || !strings.Contains(err.Error(), "Prompt (did you mean SessionPrompt?)") {
		t.Fatalf("params type under another name: %v", err)
	}
	if err := acp.CheckAgentHandler(&helperAgent{}); err != nil {
		t.Fatalf("helpers flagged: %v", err)
	}
	if err := acp.CheckAgentHandler(&plainAgent{}); err != nil {
		t.Fatalf("a correct handler flagged: %v", err)
	}
}

func TestTextShortcuts(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{acp.TextBlock("hi"), `{"type":"text","text":"hi"}`},
		{acp.AgentMessageChunkText("hi"), `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}`},
		{acp.UserMessageChunkText("hi"), `{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hi"}}`},
		{acp.AgentThoughtChunkText("hi"), `{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"hi"}}`},
		{acp.ContentText("hi"), `{"type":"content","content":{"type":"text","text":"hi"}}`},
	} {
		b, err := json.Marshal(c.v)
		if err != nil || string(b) != c.want {
			t.Errorf("%T: %s %v, want %s", c.v, b, err, c.want)
		}
	}
}

// Short constructors from the variants' required members: each encodes as
// the variant with those members and passes Validate.
func TestShortConstructors(t *testing.T) {
	entries := []acp.PlanEntry{{Content: "write tests", Priority: acp.PlanEntryPriorityHigh, Status: acp.PlanEntryStatusPending}}
	for _, c := range []struct {
		v interface {
			Validate() error
		}
		want string
	}{
		{ptr(acp.ImageBlock("aGk=", "image/png")), `{"type":"image","data":"aGk=","mimeType":"image/png"}`},
		{ptr(acp.ResourceLinkBlock("notes", "file:///notes.md")), `{"type":"resource_link","name":"notes","uri":"file:///notes.md"}`},
		{ptr(acp.NewToolCall("call-1", "Read notes")), `{"sessionUpdate":"tool_call","toolCallId":"call-1","title":"Read notes"}`},
		{ptr(acp.NewToolCallUpdate("call-1")), `{"sessionUpdate":"tool_call_update","toolCallId":"call-1"}`},
		{ptr(acp.PlanUpdate(entries)), `{"sessionUpdate":"plan","entries":[{"content":"write tests","priority":"high","status":"pending"}]}`},
		{ptr(acp.SelectedOutcome("allow-once")), `{"outcome":"selected","optionId":"allow-once"}`},
		{ptr(acp.CancelledOutcome()), `{"outcome":"cancelled"}`},
	} {
		b, err := json.Marshal(c.v)
		if err != nil || string(b) != c.want {
			t.Errorf("%T: %s %v, want %s", c.v, b, err, c.want)
		}
		if err := c.v.Validate(); err != nil {
			t.Errorf("%s: %v", c.want, err)
		}
	}
	// The payload stays reachable for the optional members.
	u := acp.NewToolCallUpdate("call-1")
	done := acp.ToolCallStatusCompleted
	u.ToolCallUpdate.Status = &done
	if b, _ := json.Marshal(u); !strings.Contains(string(b), `"status":"completed"`) {
		t.Fatalf("tool call update with status: %s", b)
	}
	if k := acp.NewToolCall("c", "t").Kind(); k != acp.SessionUpdateKindToolCall {
		t.Fatalf("tool call kind %q", k)
	}
}

// plainAgent initializes; with badUpdate its prompt sends an empty update
// and reports the error it got.
type plainAgent struct {
	acp.UnimplementedAgentHandler
	conn      *acp.AgentConn
	badUpdate bool
	errs      chan error
}

func (a *plainAgent) Initialize(context.Context, *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	return &acp.InitializeResponse{}, nil
}

func (a *plainAgent) SessionPrompt(ctx context.Context, p *acp.PromptRequest) (*acp.PromptResponse, error) {
	if a.badUpdate {
		err := a.conn.SessionUpdate(ctx, &acp.SessionNotification{SessionID: p.SessionID})
		a.errs <- err
		return nil, err
	}
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

type updateClient struct {
	acp.UnimplementedClientHandler
	got chan *acp.SessionNotification
}

func (c *updateClient) SessionUpdate(ctx context.Context, p *acp.SessionNotification) {
	c.got <- p
}

// connect runs a and cl against each other; o configures the client end.
func connect(t *testing.T, a *plainAgent, cl acp.ClientHandler, o acp.ConnOptions) (*acp.ClientConn, func()) {
	t.Helper()
	ar, cw := io.Pipe()
	cr, aw := io.Pipe()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	a.conn = acp.NewAgentConn(a, ar, aw, acp.ConnOptions{RPC: acp.RPCOptions{Logger: quiet}})
	o.RPC.Logger = quiet
	cc := acp.NewClientConn(cl, cr, cw, o)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); a.conn.Run(ctx) }()
	go func() { defer wg.Done(); cc.Run(ctx) }()
	return cc, func() { cancel(); cw.Close(); aw.Close(); wg.Wait() }
}

// The update kinds only the unstable channel has, sent by an agent built on
// it, reach a lenient stable client's handler as Unknown variants with their
// tag: one generated example of each, from the pinned unstable schema.
func TestUnstableUpdateKindsReachStableClient(t *testing.T) {
	examples, err := corpus.Examples(pinned.File(t, "schema.unstable.json"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, ex := range examples {
		if ex.Def != "SessionUpdate" {
			continue
		}
		var probe struct {
			Update struct {
				Kind string `json:"sessionUpdate"`
			} `json:"update"`
		}
		frame := []byte(`{"sessionId":"s","update":` + string(ex.JSON) + `}`)
		if json.Unmarshal(frame, &probe) != nil || seen[probe.Update.Kind] {
			continue
		}
		var stable acp.SessionNotification
		if err := stable.UnmarshalJSON(frame); err != nil || stable.Update.Unknown == nil {
			continue // a kind the stable channel knows
		}
		seen[probe.Update.Kind] = true
		got := make(chan *acp.SessionNotification, 1)
		a := &plainAgent{}
		cc, stop := connect(t, a, &updateClient{got: got}, acp.ConnOptions{OnDrop: func(m string, err error) { t.Errorf("%s dropped: %v", probe.Update.Kind, err) }})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if _, err := cc.Initialize(ctx, &acp.InitializeRequest{}); err != nil {
			t.Fatal(err)
		}
		if err := a.conn.SendNotification(ctx, acp.MethodSessionUpdate, wire.Raw(frame)); err != nil {
			t.Fatal(err)
		}
		select {
		case n := <-got:
			if string(n.Update.Kind()) != probe.Update.Kind || n.Update.Unknown == nil {
				t.Errorf("%s: handler got kind %q", probe.Update.Kind, n.Update.Kind())
			}
		case <-ctx.Done():
			t.Errorf("%s: never reached the handler", probe.Update.Kind)
		}
		cancel()
		stop()
	}
	if len(seen) == 0 {
		t.Fatal("the unstable schema has no update kind the stable one lacks")
	}
	t.Logf("unstable-only update kinds delivered: %v", seen)
}
