//go:build unix

package inspect

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/acphttp"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// listenExampleAgent starts examples/agent with -listen on a free loopback
// port and returns its URL; the agent is killed at cleanup.
func listenExampleAgent(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, program(t, "./examples/agent"), "-listen", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok {
		t.Fatalf("agent printed %q", line)
	}
	return url
}

// netInspector is ServeNetwork running in the test.
type netInspector struct {
	url           string
	cancel        context.CancelFunc
	done          chan error
	trace, stderr bytes.Buffer
	res           *Result
}

func startNetInspector(t *testing.T, connect string) *netInspector {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	in := &netInspector{cancel: cancel, done: make(chan error, 1)}
	bound := make(chan net.Addr, 1)
	o := NetOptions{Listen: "127.0.0.1:0", Connect: connect, Profiles: testProfiles(t), Stderr: &in.stderr, Trace: &in.trace,
		Listening: func(a net.Addr) { bound <- a }}
	go func() {
		res, err := ServeNetwork(ctx, o)
		in.res = res
		in.done <- err
	}()
	select {
	case a := <-bound:
		in.url = "ws://" + a.String() + "/acp"
	case err := <-in.done:
		t.Fatalf("ServeNetwork: %v", err)
	}
	t.Cleanup(in.cancel)
	return in
}

// stop ends the inspector and returns its trace.
func (in *netInspector) stop(t *testing.T) []Record {
	t.Helper()
	in.cancel()
	if err := <-in.done; err != nil {
		t.Fatalf("ServeNetwork: %v", err)
	}
	recs, err := ReadTrace(&in.trace, "trace")
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// msgLog records the messages of one side of a connection, in order.
type msgLog struct {
	mu        sync.Mutex
	sent, got [][]byte
}

func (l *msgLog) add(to *[][]byte, m []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	*to = append(*to, bytes.Clone(m))
}

func (l *msgLog) lists() ([][]byte, [][]byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.sent), slices.Clone(l.got)
}

// recConn is a connection that logs every message it carries.
type recConn struct {
	*acphttp.Conn
	log *msgLog
}

func (r recConn) ReadMessage() ([]byte, error) {
	m, err := r.Conn.ReadMessage()
	if err == nil {
		r.log.add(&r.log.got, m)
	}
	return m, err
}

func (r recConn) WriteMessage(m []byte) error {
	r.log.add(&r.log.sent, m)
	return r.Conn.WriteMessage(m)
}

// startTap serves a plain relay to agent, independent of the inspector's:
// each connection copies messages both ways and logs them, by the order
// the connections were accepted in.
func startTap(t *testing.T, agent string) (string, func() []*msgLog) {
	t.Helper()
	var mu sync.Mutex
	var logs []*msgLog
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := acphttp.NewServer(func(ctx context.Context, down *acphttp.Conn) error {
		up, err := acphttp.Dial(ctx, agent, acphttp.DialOptions{Logger: quiet})
		if err != nil {
			return err
		}
		l := &msgLog{}
		mu.Lock()
		logs = append(logs, l)
		mu.Unlock()
		rec := recConn{up, l}
		go func() { copyMessages(rec, down); up.Close() }()
		copyMessages(down, rec)
		down.Close()
		return nil
	}, acphttp.Options{Logger: quiet})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go acphttp.Serve(ctx, ln, srv, acphttp.ServeOptions{})
	t.Cleanup(cancel)
	return "ws://" + ln.Addr().String() + "/acp", func() []*msgLog {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(logs)
	}
}

func copyMessages(dst jsonrpc.MessageWriter, src jsonrpc.MessageReader) {
	for {
		m, err := src.ReadMessage()
		if err != nil || dst.WriteMessage(m) != nil {
			return
		}
	}
}

type refuseRequests struct{}

func (refuseRequests) HandleRequest(context.Context, string, wire.Raw) (wire.Raw, error) {
	return nil, &wire.RPCError{Code: wire.CodeMethodNotFound, Message: "Method not found"}
}

func (refuseRequests) HandleNotification(context.Context, string, wire.Raw) {}

// netClient is a logged JSON-RPC client of url.
func netClient(t *testing.T, url string) (*jsonrpc.Conn, *msgLog) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := acphttp.Dial(ctx, url, acphttp.DialOptions{Profile: acphttp.WebSocket})
	if err != nil {
		t.Fatal(err)
	}
	l := &msgLog{}
	rec := recConn{c, l}
	rpc := jsonrpc.NewConn(rec, rec, refuseRequests{}, jsonrpc.Options{})
	go rpc.Run(context.Background())
	t.Cleanup(func() { rpc.Close(); c.Close() })
	return rpc, l
}

func call(t *testing.T, rpc *jsonrpc.Conn, method, params string) (wire.Raw, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return rpc.Call(ctx, method, wire.Raw(params))
}

func mustCall(t *testing.T, rpc *jsonrpc.Conn, method, params string) wire.Raw {
	t.Helper()
	res, err := call(t, rpc, method, params)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return res
}

// Two clients at once through the network inspector to examples/agent
// -listen (with a plain tap between the inspector and the agent): each
// message arrives with the bytes it was sent with, both ways; valid traffic
// has no finding on either connection (each has its own checker: one
// negotiates v1, the other v2 after it, with the same request ids), and one invalid
// prompt has one finding, on its connection.
func TestNetworkRelayUnchanged(t *testing.T) {
	tapURL, tapLogs := startTap(t, listenExampleAgent(t))
	in := startNetInspector(t, tapURL)
	cwd := t.TempDir()
	var rpcs []*jsonrpc.Conn
	var logs []*msgLog
	inits := []string{
		`{"protocolVersion":1,"clientCapabilities":{}}`,
		`{"protocolVersion":2,"info":{"name":"t","version":"1"},"capabilities":{}}`,
	}
	for _, init := range inits {
		rpc, l := netClient(t, in.url)
		mustCall(t, rpc, "initialize", init)
		rpcs, logs = append(rpcs, rpc), append(logs, l)
	}
	mustCall(t, rpcs[1], "session/new", `{"cwd":"`+cwd+`","mcpServers":[]}`)
	var r struct {
		SessionID string `json:"sessionId"`
	}
	json.Unmarshal(mustCall(t, rpcs[0], "session/new", `{"cwd":"`+cwd+`","mcpServers":[]}`), &r)
	mustCall(t, rpcs[0], "session/prompt", `{"sessionId":"`+r.SessionID+`","prompt":[{"type":"text","text":"hi"}]}`)
	if _, err := call(t, rpcs[0], "session/prompt", `{"sessionId":"`+r.SessionID+`","prompt":[{"type":"text"}]}`); err == nil {
		t.Error("the agent accepted a text block without text")
	}
	for _, rpc := range rpcs {
		rpc.Close()
	}
	recs := in.stop(t)

	fs := findingsOf(recs)
	if len(fs) != 1 || fs[0].Rule != ruleSchema.name || fs[0].Method != "session/prompt" || fs[0].Direction != ToAgent {
		t.Errorf("findings %v, want one %q on the first client's session/prompt\nstderr:\n%s", fs, ruleSchema.name, &in.stderr)
	}
	for _, r := range recs {
		if len(r.Findings) > 0 && r.Connection != "1" {
			t.Errorf("finding on connection %q, want 1", r.Connection)
		}
	}
	taps := tapLogs()
	if len(taps) != 2 {
		t.Fatalf("%d connections reached the agent, want 2", len(taps))
	}
	for i, l := range logs {
		sent, got := l.lists()
		tapSent, tapGot := taps[i].lists()
		if len(sent) < 2 || !slices.EqualFunc(sent, tapSent, bytes.Equal) {
			t.Errorf("client %d: sent %d messages, the agent side got %d; bytes changed:\n%s", i+1, len(sent), len(tapSent), diffMessages(sent, tapSent))
		}
		if len(got) < 2 || !slices.EqualFunc(got, tapGot, bytes.Equal) {
			t.Errorf("client %d: got %d messages, the agent side sent %d; bytes changed:\n%s", i+1, len(got), len(tapGot), diffMessages(got, tapGot))
		}
	}
}

// diffMessages shows the first message that differs.
func diffMessages(a, b [][]byte) string {
	for i := range max(len(a), len(b)) {
		if i >= len(a) || i >= len(b) || !bytes.Equal(a[i], b[i]) {
			var x, y []byte
			if i < len(a) {
				x = a[i]
			}
			if i < len(b) {
				y = b[i]
			}
			return fmt.Sprintf("message %d:\n%s\n%s", i, x, y)
		}
	}
	return ""
}
