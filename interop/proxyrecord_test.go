package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/dispatch"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/proxy"
)

// chainWait bounds a chain's run and every wait of the proxy tests:
// generous, so that a loaded machine never fails them.
const chainWait = 2 * time.Minute

// hop is one proxy of a chain run in the test process, with what crossed
// each of its links.
type hop struct {
	name string
	p    *proxy.Proxy
	// claims holds the methods the proxy intercepts, by the link their
	// messages come from: 0 the predecessor, 1 the successor.
	claims     [2]map[string]bool
	pred, succ *recorder
}

func newHop(name string) *hop {
	return &hop{
		name:   name,
		p:      proxy.New(proxy.Options{Logger: slog.New(slog.DiscardHandler)}),
		claims: [2]map[string]bool{{}, {}},
	}
}

// intercept registers f for m's requests on h and notes the claim.
func intercept[P, R any](h *hop, m *dispatch.Request[P, R], f func(context.Context, P, func(context.Context, P) (R, error)) (R, error)) {
	proxy.Request(h.p, m, f)
	from := 0 // an agent-side method comes from the predecessor
	if m.Side == "client" {
		from = 1
	}
	h.claims[from][m.Wire] = true
}

// recorder is a proxy.Link that keeps a copy of every message read from
// and written to the link it wraps, in order. gate, when set, runs before
// a Read reports the end of the input.
type recorder struct {
	proxy.Link
	gate    func()
	changed chan struct{} // gets a token whenever a message is recorded

	mu            sync.Mutex
	read, written [][]byte
	cancels       int // $/cancel_request messages written
}

func recording(l proxy.Link, changed chan struct{}) *recorder {
	return &recorder{Link: l, changed: changed}
}

func (r *recorder) Read() ([]byte, error) {
	b, err := r.Link.Read()
	if errors.Is(err, io.EOF) && r.gate != nil {
		r.gate()
	}
	if err == nil {
		r.mu.Lock()
		r.read = append(r.read, bytes.Clone(b))
		r.mu.Unlock()
		r.signal()
	}
	return b, err
}

func (r *recorder) Write(b []byte) error {
	r.mu.Lock()
	r.written = append(r.written, bytes.Clone(b))
	if parse(b).method == jsonrpc.CancelRequestMethod {
		r.cancels++
	}
	r.mu.Unlock()
	r.signal()
	return r.Link.Write(b)
}

// CloseWrite passes the half-close on as the wrapped link would take it.
func (r *recorder) CloseWrite() error {
	if hc, ok := r.Link.(interface{ CloseWrite() error }); ok {
		return hc.CloseWrite()
	}
	return r.Link.Close()
}

// cancelCount is the number of $/cancel_request messages written.
func (r *recorder) cancelCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cancels
}

func (r *recorder) signal() {
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

func (r *recorder) frames() (read, written [][]byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.read), slices.Clone(r.written)
}

// msg is what the relay checks need of a JSON-RPC message: the id's and
// a $/cancel_request's requestId's JSON text ("" when absent), the method.
type msg struct {
	raw              []byte
	id, method, what string
}

func parse(b []byte) msg {
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	_ = json.Unmarshal(b, &env)
	m := msg{raw: b, id: string(env.ID), method: env.Method}
	if m.method == jsonrpc.CancelRequestMethod {
		m.what = string(env.Params.RequestID)
	}
	return m
}

func (m msg) isRequest() bool  { return m.id != "" && m.method != "" }
func (m msg) isResponse() bool { return m.id != "" && m.method == "" }

func parseAll(frames [][]byte) []msg {
	out := make([]msg, len(frames))
	for i, f := range frames {
		out[i] = parse(f)
	}
	return out
}

func idsOf(ms []msg, keep func(msg) bool) map[string]bool {
	ids := map[string]bool{}
	for _, m := range ms {
		if keep(m) {
			ids[m.id] = true
		}
	}
	return ids
}

// traffic is what crossed a hop's two links: read from and written to
// each (0 the predecessor, 1 the successor), and what the relay checks
// derive from it.
type traffic struct {
	h             *hop
	read, written [2][]msg
	// own holds the ids of the proxy's own requests: those it wrote that
	// it did not read from the other side.
	own map[string]bool
	// claimed holds, per side, the ids of the intercepted requests read
	// from it.
	claimed [2]map[string]bool
}

func (h *hop) traffic() *traffic {
	tr := &traffic{h: h, own: map[string]bool{}}
	for s, r := range []*recorder{h.pred, h.succ} {
		read, written := r.frames()
		tr.read[s], tr.written[s] = parseAll(read), parseAll(written)
	}
	for s := range 2 {
		tr.claimed[s] = idsOf(tr.read[s], func(m msg) bool { return m.isRequest() && h.claims[s][m.method] })
		peers := idsOf(tr.read[1-s], msg.isRequest)
		for id := range idsOf(tr.written[s], msg.isRequest) {
			if !peers[id] {
				tr.own[id] = true
			}
		}
	}
	return tr
}

// claimedFrom reports whether the proxy took m, read from side s, for
// itself instead of relaying it: an intercepted message, a cancel of an
// intercepted request, an answer to one of its own requests.
func (tr *traffic) claimedFrom(s int, m msg) bool {
	switch {
	case m.method == jsonrpc.CancelRequestMethod:
		return tr.claimed[s][m.what]
	case m.method != "":
		return tr.h.claims[s][m.method]
	}
	return tr.own[m.id]
}

// madeFor reports whether the proxy wrote m to side s on its own account:
// its own request or cancel, an intercepted notification passed on, the
// answer to an intercepted request from s.
func (tr *traffic) madeFor(s int, m msg) bool {
	switch {
	case m.method == jsonrpc.CancelRequestMethod:
		return tr.own[m.what]
	case m.isRequest():
		return tr.own[m.id]
	case m.method != "":
		return tr.h.claims[1-s][m.method]
	}
	return tr.claimed[s][m.id]
}

// checkRelayed checks that what the hop read from each side and did not
// claim was written to the other side as the same bytes, in the same
// order, and nothing else, and returns the number of session/update
// notifications it relayed.
func (tr *traffic) checkRelayed(t *testing.T) (updates int) {
	t.Helper()
	for s, dir := range []string{"down", "up"} {
		var relayed, passed [][]byte
		for _, m := range tr.read[s] {
			if !tr.claimedFrom(s, m) {
				relayed = append(relayed, m.raw)
				if m.method == "session/update" {
					updates++
				}
			}
		}
		for _, m := range tr.written[1-s] {
			if !tr.madeFor(1-s, m) {
				passed = append(passed, m.raw)
			}
		}
		if i, differ := firstDifference(relayed, passed); differ {
			t.Errorf("%s relayed %s: message %d of %d read is\n  %s\nwritten as message %d of %d:\n  %s",
				tr.h.name, dir, i, len(relayed), excerpt(relayed, i), i, len(passed), excerpt(passed, i))
		}
	}
	return updates
}

func firstDifference(a, b [][]byte) (int, bool) {
	for i := range min(len(a), len(b)) {
		if !bytes.Equal(a[i], b[i]) {
			return i, true
		}
	}
	return min(len(a), len(b)), len(a) != len(b)
}

func excerpt(frames [][]byte, i int) string {
	if i >= len(frames) {
		return "(none)"
	}
	f := frames[i]
	if len(f) > 300 {
		return fmt.Sprintf("%s... (%d bytes)", f[:300], len(f))
	}
	return fmt.Sprintf("%s (%d bytes)", f, len(f))
}

// cancels returns the requestIds of the $/cancel_request messages the hop
// read from its predecessor and wrote to its successor.
func (tr *traffic) cancels() (read, written []string) {
	for _, m := range tr.read[0] {
		if m.method == jsonrpc.CancelRequestMethod {
			read = append(read, m.what)
		}
	}
	for _, m := range tr.written[1] {
		if m.method == jsonrpc.CancelRequestMethod {
			written = append(written, m.what)
		}
	}
	return read, written
}

// settled reports whether every request the hop cancelled downstream has
// been answered by its successor.
func (h *hop) settled() bool {
	read, written := h.succ.frames()
	answered := idsOf(parseAll(read), msg.isResponse)
	for _, m := range parseAll(written) {
		if m.method == jsonrpc.CancelRequestMethod && !answered[m.what] {
			return false
		}
	}
	return true
}

// trafficFile is a hop's traffic as a component writes it for the test:
// the frames as strings, by link.
type trafficFile struct {
	Name   string
	Claims [2]map[string]bool
	Links  [2]struct{ Read, Written []string }
}

// dump writes h's traffic to file.
func (h *hop) dump(file string) error {
	rec := trafficFile{Name: h.name, Claims: h.claims}
	for s, r := range []*recorder{h.pred, h.succ} {
		read, written := r.frames()
		for _, f := range read {
			rec.Links[s].Read = append(rec.Links[s].Read, string(f))
		}
		for _, f := range written {
			rec.Links[s].Written = append(rec.Links[s].Written, string(f))
		}
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return os.WriteFile(file, b, 0o644)
}

// loadHop reads a hop's traffic that dump wrote.
func loadHop(file string) (*hop, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var rec trafficFile
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, err
	}
	h := &hop{name: rec.Name, claims: rec.Claims}
	links := [2]*recorder{{}, {}}
	for s, l := range rec.Links {
		for _, f := range l.Read {
			links[s].read = append(links[s].read, []byte(f))
		}
		for _, f := range l.Written {
			links[s].written = append(links[s].written, []byte(f))
		}
	}
	h.pred, h.succ = links[0], links[1]
	return h, nil
}
