package conform

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"github.com/acpgen/acpgen/internal/procgroup"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
)

// frame is one message the peer wrote, in arrival order.
type frame struct {
	Seq    int
	Raw    []byte
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
	// Bad says why the line is not a JSON-RPC message ("" when it is one).
	Bad string
	env jsonrpc.Envelope // the members, classified by jsonrpc's predicates
	// Batch holds the entries of a line that is a JSON array (a JSON-RPC
	// 2.0 batch), each a frame of its own; nil for any other line.
	Batch []*frame
}

type rpcError struct {
	Code    *int            `json:"code"`
	Message *string         `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func (f *frame) isResponse() bool { return f.env.IsResponse() }

func (f *frame) isRequest() bool { return f.Bad == "" && f.env.IsRequest() }

// peer is a started process spoken to with newline-delimited JSON-RPC. It is
// deliberately not runtime/jsonrpc: the checker must write frames no
// conforming connection would, and see every byte the peer writes.
type peer struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	exited chan struct{}
	state  *os.ProcessState // how it exited, once exited is closed
	eof    chan struct{}    // closed when the peer's output ends
	stderr *tailBuffer
	// stderrDone is closed once everything the peer wrote on stderr is in
	// stderr (its copier reached the end of the pipe).
	stderrDone chan struct{}
	// broken is set when a write failed: the peer closed its input,
	// which a dying process does.
	broken bool

	mu      sync.Mutex
	frames  []*frame
	changed chan struct{} // closed and replaced on every new frame
	nextID  int
	// onRequest answers the peer's own requests; it runs on the reader.
	onRequest func(*frame) (result any, err *rpcError)
	// onFrame sees every frame as it arrives (validation, gates).
	onFrame func(*frame)
}

// start runs argv in its own process group, so that killing the group ends
// everything it started, and speaks to it over its stdin and stdout.
func start(argv []string, onFrame func(*frame), onRequest func(*frame) (any, *rpcError)) (*peer, error) {
	p, err := newPeer(argv, onFrame, onRequest)
	if err != nil {
		return nil, err
	}
	stdin, err := p.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := p.run(); err != nil {
		return nil, err
	}
	p.stdin = stdin
	go p.read(stdout)
	return p, nil
}

// startDetached runs argv like start, but its frames travel on a connection
// attached later (the scripted agent's relay), not on its stdio.
func startDetached(argv []string, onFrame func(*frame)) (*peer, error) {
	p, err := newPeer(argv, onFrame, nil)
	if err != nil {
		return nil, err
	}
	return p, p.run()
}

// attach makes conn the peer's input and output.
func (p *peer) attach(conn io.ReadWriteCloser) {
	p.mu.Lock()
	p.stdin = conn
	p.mu.Unlock()
	go p.read(conn)
}

func newPeer(argv []string, onFrame func(*frame), onRequest func(*frame) (any, *rpcError)) (*peer, error) {
	if len(argv) == 0 {
		return nil, errors.New("no command given: acpgen conform agent|client -- CMD [ARGS]")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	procgroup.Set(cmd)
	p := &peer{cmd: cmd, exited: make(chan struct{}), eof: make(chan struct{}), stderr: &tailBuffer{max: 4096},
		stderrDone: make(chan struct{}), changed: make(chan struct{}), onFrame: onFrame, onRequest: onRequest}
	return p, nil
}

func (p *peer) run() error {
	// The checker's own stderr pipe, not exec's copier: its end is seen
	// here, so a report can wait for the dying peer's last line.
	rd, wr, err := os.Pipe()
	if err != nil {
		return err
	}
	p.cmd.Stderr = wr
	err = p.cmd.Start()
	wr.Close()
	if err != nil {
		rd.Close()
		return fmt.Errorf("starting %s: %w", p.cmd.Args[0], err)
	}
	go func() {
		_, _ = io.Copy(p.stderr, rd)
		rd.Close()
		close(p.stderrDone)
	}()
	// Process.Wait, not cmd.Wait: exit is the process's own, even when
	// something it started still holds its output open.
	go func() {
		p.state, _ = p.cmd.Process.Wait() // read only after exited is closed
		close(p.exited)
		p.mu.Lock()
		close(p.changed)
		p.changed = make(chan struct{})
		p.mu.Unlock()
	}()
	return nil
}

func (p *peer) read(r io.Reader) {
	defer close(p.eof)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 64<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		f := &frame{Raw: append([]byte(nil), line...)} // the scanner reuses line
		if err := parseFrame(f.Raw, f); err != nil {
			f.Bad = "not JSON-RPC: " + err.Error()
			f.Raw = f.Raw[:min(len(f.Raw), 512)] // what a report quotes of it
		}
		// Judged before it is published: a case that has seen the frame
		// finds it in the log (the run's last answer included).
		if p.onFrame != nil {
			p.onFrame(f)
		}
		// A batch's entries follow it as frames of their own, so that the
		// cases see them as they see single lines: turns, requests, order.
		p.publish(append([]*frame{f}, f.Batch...))
		p.answer(f)
	}
}

// publish appends frames to the log, in order.
func (p *peer) publish(fs []*frame) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, f := range fs {
		f.Seq = len(p.frames)
		if f.Seq >= maxFrames {
			// Past the bound a flooding peer's lines are still judged (the
			// frame log counts them) but not kept for the cases to wait on.
			continue
		}
		p.frames = append(p.frames, f)
		close(p.changed)
		p.changed = make(chan struct{})
	}
}

// answer replies to the peer's requests in a line: one response for a
// request, an array of them for a batch's (JSON-RPC 2.0 §6).
func (p *peer) answer(f *frame) {
	if p.onRequest == nil {
		return
	}
	if f.Batch == nil {
		if f.isRequest() {
			res, rerr := p.onRequest(f)
			_ = p.write(replyFrame(f.ID, res, rerr))
		}
		return
	}
	var replies []json.RawMessage
	for _, g := range f.Batch {
		if g.isRequest() {
			res, rerr := p.onRequest(g)
			replies = append(replies, replyFrame(g.ID, res, rerr))
		}
	}
	if len(replies) > 0 {
		b, _ := json.Marshal(replies)
		_ = p.write(b)
	}
}

// parseFrame reads one line: a message, or a batch of them.
func parseFrame(line []byte, f *frame) error {
	if line[0] != '[' {
		f.env, _ = jsonrpc.PeekEnvelope(line)
		return json.Unmarshal(line, f)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(line, &items); err != nil {
		return err
	}
	f.Batch = []*frame{}
	for _, it := range items {
		g := &frame{Raw: it}
		g.env, _ = jsonrpc.PeekEnvelope(it)
		if err := json.Unmarshal(it, g); err != nil {
			g.Bad = "not JSON-RPC: " + err.Error()
		}
		f.Batch = append(f.Batch, g)
	}
	return nil
}

// maxFrames bounds the lines a run keeps: a conforming peer writes a few
// thousand in a whole run, and a peer that floods its output must not take
// the checker's memory with it.
const maxFrames = 200_000

var errExited = errors.New("the peer exited")

// write sends one line.
func (p *peer) write(line []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stdin == nil {
		return errExited
	}
	_, err := p.stdin.Write(append(append([]byte(nil), line...), '\n'))
	if err != nil {
		p.broken = true
	}
	return err
}

// send writes a request and returns its id.
func (p *peer) send(method string, params json.RawMessage) (string, error) {
	return p.sendLogged(method, params, nil)
}

// sendLogged is send that hands the id to logged before the request goes
// out, so that a response read at once finds its method recorded.
func (p *peer) sendLogged(method string, params json.RawMessage, logged func(id string)) (string, error) {
	p.mu.Lock()
	p.nextID++
	id := strconv.Itoa(p.nextID)
	p.mu.Unlock()
	if logged != nil {
		logged(id)
	}
	msg := map[string]any{"jsonrpc": "2.0", "id": p.nextID, "method": method}
	if params != nil {
		msg["params"] = params
	}
	b, _ := json.Marshal(msg)
	return id, p.write(b)
}

func (p *peer) notify(method string, params json.RawMessage) error {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	return p.write(b)
}

// wait returns the first frame at or after seq that match accepts, or nil
// when the deadline passes or the peer exits first.
func (p *peer) wait(ctx context.Context, seq int, match func(*frame) bool) *frame {
	for {
		p.mu.Lock()
		for _, f := range p.frames[min(seq, len(p.frames)):] {
			if match(f) {
				p.mu.Unlock()
				return f
			}
		}
		seq = len(p.frames)
		ch := p.changed
		p.mu.Unlock()
		select {
		case <-ch:
		case <-p.exited:
			// One more pass once the output is read to its end: the
			// peer may have written its answer just before exiting.
			p.drained()
			p.mu.Lock()
			var hit *frame
			for _, f := range p.frames[min(seq, len(p.frames)):] {
				if match(f) {
					hit = f
					break
				}
			}
			p.mu.Unlock()
			return hit
		case <-ctx.Done():
			return nil
		}
	}
}

// drainWait bounds the wait for a dead peer's output and stderr to end: a
// process it started may still hold them open.
const drainWait = 5 * time.Second

// drained waits, once the peer exited, until its output was read to the end.
func (p *peer) drained() {
	select {
	case <-p.eof:
	case <-time.After(drainWait):
	}
}

// seq is the number of frames received so far.
func (p *peer) seq() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.frames)
}

func (p *peer) since(seq int) []*frame {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*frame(nil), p.frames[min(seq, len(p.frames)):]...)
}

// call sends a request and waits for its response.
func (p *peer) call(ctx context.Context, timeout time.Duration, method string, params json.RawMessage) (*frame, error) {
	seq := p.seq()
	id, err := p.send(method, params)
	if err != nil {
		return nil, err
	}
	return p.response(ctx, timeout, seq, id)
}

func (p *peer) response(ctx context.Context, timeout time.Duration, seq int, id string) (*frame, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	f := p.wait(ctx, seq, func(f *frame) bool { return f.isResponse() && idIs(f.ID, id) })
	if f != nil {
		return f, nil
	}
	select {
	case <-p.exited:
		return nil, errExited
	default:
	}
	return nil, fmt.Errorf("no response within %s", timeout)
}

func idIs(raw json.RawMessage, id string) bool {
	s := string(bytes.TrimSpace(raw))
	return s == id || s == strconv.Quote(id)
}

// kill ends the whole process group and waits for the reader.
func (p *peer) kill() {
	p.closeInput()
	if p.cmd.Process != nil {
		_ = procgroup.Kill(p.cmd)
	}
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
	}
}

// closeStdin closes the peer's input and reports whether it exited within d.
func (p *peer) closeStdin(d time.Duration) bool {
	p.closeInput()
	select {
	case <-p.exited:
		return true
	case <-time.After(d):
		return false
	}
}

func (p *peer) closeInput() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stdin != nil {
		_ = p.stdin.Close()
	}
}

// tailBuffer keeps the last max bytes written (the peer's stderr).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// replyFrame is the response to request id: its error when rerr is set,
// else its result.
func replyFrame(id json.RawMessage, res any, rerr *rpcError) []byte {
	msg := map[string]any{"jsonrpc": "2.0", "id": id}
	if rerr != nil {
		msg["error"] = rerr
	} else {
		msg["result"] = res
	}
	b, _ := json.Marshal(msg)
	return b
}
