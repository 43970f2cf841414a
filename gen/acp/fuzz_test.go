package acp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// The fuzz targets feed arbitrary bytes to the generated decoders,
// validators and dispatcher. Whatever the input, nothing may panic and every
// failure must be an error value; what decodes and validates must encode to
// JSON that decodes strictly, validates, and encodes to the same bytes.
// Seed corpora are in testdata/fuzz/<target>/; test.sh runs each target for
// a few seconds.

type codec[T any] interface {
	*T
	Validate() error
}

// checkCodec runs one input through T in both decoding modes.
func checkCodec[T any, P codec[T]](t *testing.T, data []byte) {
	t.Helper()
	for _, mode := range []wire.Mode{wire.Lenient, wire.Strict} {
		var v T
		if err := decode(data, P(&v), mode); err != nil {
			if err.Error() == "" {
				t.Fatalf("%T: decode error with no message", v)
			}
			continue
		}
		if err := P(&v).Validate(); err != nil {
			var ve *wire.ValidationError
			if !errors.As(err, &ve) || len(ve.Violations) == 0 {
				t.Fatalf("%T: Validate returned %T %v, want *wire.ValidationError with violations", v, err, err)
			}
			continue
		}
		enc := encode(P(&v))
		if !json.Valid(enc) {
			t.Fatalf("%T (mode %v): valid value encodes to invalid JSON %q\ninput %q", v, mode, enc, data)
		}
		var w T
		if err := decode(enc, P(&w), wire.Strict); err != nil {
			t.Fatalf("%T (mode %v): encoding %s of a valid value does not decode: %v\ninput %q", v, mode, enc, err, data)
		}
		if err := P(&w).Validate(); err != nil {
			t.Fatalf("%T (mode %v): encoding %s of a valid value does not validate: %v\ninput %q", v, mode, enc, err, data)
		}
		if again := encode(P(&w)); !bytes.Equal(enc, again) {
			t.Fatalf("%T (mode %v): encoding is not stable:\n%s\n%s\ninput %q", v, mode, enc, again, data)
		}
	}
}

func addSeeds(f *testing.F, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
}

func FuzzContentBlock(f *testing.F) {
	addSeeds(f,
		`{"type":"text","text":"hi"}`,
		`{"type":"text","text":"hi","annotations":{"audience":["user"],"priority":0.5},"_meta":{"k":1}}`,
		`{"type":"image","data":"aGk=","mimeType":"image/png","uri":"https://x/y.png"}`,
		`{"type":"resource","resource":{"uri":"file:///a","text":"t"}}`,
		`{"type":"resource","resource":{"uri":"file:///a","blob":"aGk="}}`,
		`{"type":"resource_link","name":"a","uri":"file:///a","size":12}`,
		`{"type":"nope","text":"hi"}`, `{"text":"hi"}`, `{"type":null}`, `[]`, `null`,
	)
	f.Fuzz(func(t *testing.T, data []byte) { checkCodec[acp.ContentBlock](t, data) })
}

func FuzzSessionUpdate(f *testing.F) {
	addSeeds(f,
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}`,
		`{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Read","kind":"read","status":"pending","locations":[{"path":"/a","line":3}],"content":[{"type":"diff","path":"/a","oldText":null,"newText":"b"}]}`,
		`{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed","content":[{"type":"terminal","terminalId":"x"}]}`,
		`{"sessionUpdate":"plan","entries":[{"content":"a","priority":"high","status":"pending"}]}`,
		`{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"c","description":"d","input":{"hint":"h"}}]}`,
		`{"sessionUpdate":"current_mode_update","currentModeId":"m"}`,
		`{"sessionUpdate":"usage_update","used":1,"size":2,"cost":{"amount":0.1,"currency":"USD"}}`,
		`{"sessionUpdate":"session_info_update","title":null,"updatedAt":"2026-01-01T00:00:00Z"}`,
		`{"sessionUpdate":"bogus"}`, `{"sessionUpdate":"plan","entries":[1,{"content":"a"}]}`,
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkCodec[acp.SessionUpdate](t, data)
		// The notification around it, too.
		checkCodec[acp.SessionNotification](t, append(append([]byte(`{"sessionId":"s","update":`), data...), '}'))
	})
}

func FuzzMCPServer(f *testing.F) {
	addSeeds(f,
		`{"name":"fs","command":"/bin/fs","args":["-v"],"env":[{"name":"A","value":"b"}]}`,
		`{"type":"http","name":"h","url":"https://x","headers":[{"name":"A","value":"b"}]}`,
		`{"type":"sse","name":"s","url":"https://x","headers":[]}`,
		`{"type":"unknown","name":"fs","command":"/bin/fs","args":[],"env":[]}`,
		`{"type":"http","name":"h"}`, `{"name":"fs","command":"rel","args":null,"env":[]}`,
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkCodec[acp.MCPServer](t, data)
		checkCodec[acp.NewSessionRequest](t, append(append([]byte(`{"cwd":"/w","mcpServers":[`), data...), ']', '}'))
	})
}

func FuzzRequestPermissionOutcome(f *testing.F) {
	addSeeds(f,
		`{"outcome":"cancelled"}`, `{"outcome":"selected","optionId":"allow"}`,
		`{"outcome":"selected"}`, `{"outcome":"other"}`, `{"outcome":"cancelled","x":[1]}`,
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkCodec[acp.RequestPermissionOutcome](t, data)
		checkCodec[acp.RequestPermissionResponse](t, append(append([]byte(`{"outcome":`), data...), '}'))
	})
}

// FuzzElicitation covers the elicitation types: the request (tagged by mode,
// with a catch-all and an untagged scope), the response (tagged by action
// with a catch-all), the form schema and its property schemas, and the
// untagged content values.
func FuzzElicitation(f *testing.F) {
	addSeeds(f,
		`{"sessionId":"s","mode":"form","message":"m","requestedSchema":{"type":"object","properties":{"name":{"type":"string","minLength":1,"format":"email"},"n":{"type":"integer","minimum":0},"ok":{"type":"boolean","default":true},"tags":{"type":"array","items":{"type":"string","enum":["a","b"]}}},"required":["name"]}}`,
		`{"requestId":1,"mode":"url","message":"m","url":"https://x","elicitationId":"e"}`,
		`{"sessionId":"s","mode":"future","message":"m","extra":{}}`,
		`{"action":"accept","content":{"a":"x","b":1,"c":true,"d":["x"]}}`,
		`{"action":"decline"}`, `{"action":"cancel"}`, `{"action":"later","why":null}`,
		`{"type":"string","oneOf":[{"const":"a","title":"A"}]}`,
		`{"type":"array","items":{"anyOf":[{"const":"a","title":"A"}]}}`,
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkCodec[acp.CreateElicitationRequest](t, data)
		checkCodec[acp.CreateElicitationResponse](t, data)
		checkCodec[acp.ElicitationSchema](t, data)
		checkCodec[acp.ElicitationPropertySchema](t, data)
		checkCodec[acp.ElicitationContentValue](t, data)
		checkCodec[acp.MultiSelectItems](t, data)
		checkCodec[acp.CompleteElicitationNotification](t, data)
	})
}

// FuzzDispatch feeds whole frames, after a completed initialize, to both
// ends of a connection: the agent (AgentConn) and the client (ClientConn).
// Every line they write must be a JSON-RPC response (a result, or an error
// with an integer code), a non-empty array of them (a batch's answer), or a
// message of their own; nothing may panic (the runtime recovers handler
// panics and logs them at error level, which fails the test) or hang.
func FuzzDispatch(f *testing.F) {
	addSeeds(f,
		`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":"a","method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"x"}]}}`+"\n"+
			`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"t"},"options":[{"optionId":"o","name":"n","kind":"allow_once"}]}}`,
		`{"jsonrpc":"2.0","id":3,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/a"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"_vendor/x","params":{}}`+"\n"+`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":4}}`,
		`{"jsonrpc":"2.0","id":5,"result":{}}`, `[{"jsonrpc":"2.0","id":1,"method":"x"}]`, `not json`, `{}`, "\r\n\n",
		`{"jsonrpc":"2.0","id":6,"method":"session/new","params":{"cwd":"rel","mcpServers":[{"type":"http","name":"h","url":"x","headers":[]}]}}`,
		`{"jsonrpc":"2.0","id":7,"method":"session/load","params":{"sessionId":"s","cwd":"/w","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":8,"method":"session/list","params":{}}`,
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		runSide(t, data, false)
		runSide(t, data, true)
	})
}

// logCheck fails the test on any runtime log at error level (a recovered
// panic, an invalid result encoding, a failed write).
type logCheck struct {
	mu   sync.Mutex
	errs []string
}

func (l *logCheck) Enabled(_ context.Context, lv slog.Level) bool { return lv >= slog.LevelError }
func (l *logCheck) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	msg := r.Message
	r.Attrs(func(a slog.Attr) bool { msg += " " + a.String(); return true })
	l.errs = append(l.errs, msg)
	return nil
}
func (l *logCheck) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logCheck) WithGroup(string) slog.Handler      { return l }

// lineWriter collects written frames and signals the first one.
type lineWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	first chan struct{}
	once  sync.Once
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.buf.Write(p)
	w.mu.Unlock()
	w.once.Do(func() { close(w.first) })
	return len(p), nil
}

func runSide(t *testing.T, data []byte, client bool) string {
	logs := &logCheck{}
	opts := acp.ConnOptions{RPC: jsonrpc.Options{Logger: slog.New(logs), MaxFrame: 1 << 16}, OnDrop: func(string, error) {}}
	pr, pw := io.Pipe()
	out := &lineWriter{first: make(chan struct{})}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	runDone := make(chan error, 1)
	if client {
		cc := acp.NewClientConn(fuzzClient{}, pr, out, opts)
		go func() { runDone <- cc.Run(ctx) }()
		initDone := make(chan error, 1)
		yes := true
		caps := &acp.ClientCapabilities{Fs: &acp.FileSystemCapabilities{ReadTextFile: &yes, WriteTextFile: &yes}, Terminal: &yes}
		go func() {
			_, err := cc.Initialize(ctx, &acp.InitializeRequest{ClientCapabilities: caps})
			initDone <- err
		}()
		<-out.first
		if _, err := fmt.Fprintf(pw, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":%d}}`+"\n", acp.CurrentProtocolVersion); err != nil {
			t.Fatal(err)
		}
		if err := <-initDone; err != nil {
			t.Fatal(err)
		}
	} else {
		ac := acp.NewAgentConn(fuzzAgent{}, pr, out, opts)
		go func() { runDone <- ac.Run(ctx) }()
		init := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%d,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true}}}`+"\n", acp.CurrentProtocolVersion)
		if _, err := pw.Write(init); err != nil {
			t.Fatal(err)
		}
		<-out.first
	}
	if _, err := pw.Write(append(data, '\n')); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	select {
	case err := <-runDone:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("connection did not finish on input %q", data)
	}
	if len(logs.errs) > 0 {
		t.Fatalf("runtime logged errors on input %q:\n%v", data, logs.errs)
	}
	written := out.buf.String()
	s := bufio.NewScanner(&out.buf)
	s.Buffer(nil, 1<<20)
	for s.Scan() {
		if !jsonrpcLine(s.Bytes()) {
			t.Fatalf("wrote a line that is not JSON-RPC: %s\ninput %q", s.Bytes(), data)
		}
	}
	return written
}

// jsonrpcLine reports a line holding one JSON-RPC message, or a non-empty
// array of responses (a batch's answer). A message that is not a response
// is a request or notification of this side's own (e.g. $/cancel_request);
// a response carries a result or an error with an integer code.
func jsonrpcLine(line []byte) bool {
	var items []json.RawMessage
	if json.Unmarshal(line, &items) != nil {
		return jsonrpcMessage(line, false)
	}
	for _, it := range items {
		if !jsonrpcMessage(it, true) {
			return false
		}
	}
	return len(items) > 0
}

func jsonrpcMessage(b []byte, responseOnly bool) bool {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		Method  *string         `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code *int64 `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &m); err != nil || m.JSONRPC != "2.0" {
		return false
	}
	if m.Method != nil {
		return !responseOnly
	}
	return (m.Result == nil) != (m.Error == nil) && (m.Error == nil || m.Error.Code != nil)
}

// TestDispatchHarness checks that FuzzDispatch's harness reaches the handlers.
func TestDispatchHarness(t *testing.T) {
	out := runSide(t, []byte(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`), false)
	if !bytes.Contains([]byte(out), []byte(`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s"}}`)) {
		t.Fatalf("agent side wrote %s", out)
	}
	out = runSide(t, []byte(`{"jsonrpc":"2.0","id":2,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/a"}}`), true)
	if !bytes.Contains([]byte(out), []byte(`{"jsonrpc":"2.0","id":2,"result":{"content":""}}`)) {
		t.Fatalf("client side wrote %s", out)
	}
}

// fuzzAgent answers the common requests with minimal valid results, so
// inputs reach past decoding into result validation and encoding.
type fuzzAgent struct{ acp.UnimplementedAgentHandler }

func (fuzzAgent) Initialize(context.Context, *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	yes := true
	return &acp.InitializeResponse{AgentCapabilities: &acp.AgentCapabilities{
		LoadSession:        &yes,
		PromptCapabilities: &acp.PromptCapabilities{Image: &yes, Audio: &yes, EmbeddedContext: &yes},
		MCPCapabilities:    &acp.MCPCapabilities{HTTP: &yes, SSE: &yes},
		SessionCapabilities: &acp.SessionCapabilities{
			List: &acp.SessionListCapabilities{}, AdditionalDirectories: &acp.SessionAdditionalDirectoriesCapabilities{},
		},
	}}, nil
}
func (fuzzAgent) SessionNew(context.Context, *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	return &acp.NewSessionResponse{SessionID: "s"}, nil
}
func (fuzzAgent) SessionLoad(context.Context, *acp.LoadSessionRequest) (*acp.LoadSessionResponse, error) {
	return &acp.LoadSessionResponse{}, nil
}
func (fuzzAgent) SessionList(_ context.Context, p *acp.ListSessionsRequest) (*acp.ListSessionsResponse, error) {
	return &acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}, nil
}
func (fuzzAgent) SessionPrompt(context.Context, *acp.PromptRequest) (*acp.PromptResponse, error) {
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

type fuzzClient struct{ acp.UnimplementedClientHandler }

func (fuzzClient) SessionUpdate(context.Context, *acp.SessionNotification) {}
func (fuzzClient) SessionRequestPermission(context.Context, *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	return &acp.RequestPermissionResponse{Outcome: acp.NewRequestPermissionOutcomeCancelled(acp.RequestPermissionOutcomeCancelled{})}, nil
}
func (fuzzClient) FsReadTextFile(context.Context, *acp.ReadTextFileRequest) (*acp.ReadTextFileResponse, error) {
	return &acp.ReadTextFileResponse{Content: ""}, nil
}

// FuzzColdTypes runs types off the streaming path, which runtime/wire's
// table interpreter decodes, encodes and validates (pointers, nested
// tables, slices, maps, named scalars and enums, hot types inside cold
// ones), through the same codec checks as the generated ones.
func FuzzColdTypes(f *testing.F) {
	addSeeds(f,
		`{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true},"terminal":false,"_meta":{"a":1}},"x":[]}`,
		`{"protocolVersion":1,"agentCapabilities":{"loadSession":true,"promptCapabilities":{"image":true},"mcpCapabilities":{"http":false}},"authMethods":[{"id":"a","name":"A"}]}`,
		`{"sessionId":"s","path":"/a","line":3,"limit":null}`,
		`{"sessionId":"s","toolCall":{"toolCallId":"t","status":"pending","kind":"edit"},"options":[{"optionId":"o","name":"Allow","kind":"allow_once"}]}`,
		`{"audience":["user"],"priority":0.5,"lastModified":"x"}`,
		`{"sessionId":"s","modes":{"currentModeId":"a","availableModes":[{"id":"a","name":"A"}]}}`,
		`{"line":-1}`, `{"priority":"high"}`, `{"protocolVersion":"one"}`,
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkCodec[acp.InitializeRequest](t, data)
		checkCodec[acp.InitializeResponse](t, data)
		checkCodec[acp.ReadTextFileRequest](t, data)
		checkCodec[acp.RequestPermissionRequest](t, data)
		checkCodec[acp.Annotations](t, data)
		checkCodec[acp.NewSessionResponse](t, data)
	})
}
