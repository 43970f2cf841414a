package conform

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/acpgen/acpgen/generator/ir"
)

// ClientCategories lists the client checks in the order they run.
var ClientCategories = []string{"initialize", "requests", "unknown-method", "notifications", "exit", "frames", "gates"}

// ClientOptions configure a client run.
type ClientOptions struct {
	Argv []string // the client's command line, with {agent} in it
	// Relay is the scripted agent's command line; the socket path is
	// appended. acpgen passes itself with hidden arguments.
	Relay      []string
	Timeout    time.Duration // per case
	Categories []string      // empty: every category
}

// clientRun is one check of a client: the scripted agent is started up to
// three times, advertising nothing, then every capability the profile's
// gates name (the requests and notifications are sent there), then once
// more to end its stdout after initialize.
type clientRun struct {
	p   *Profile
	o   ClientOptions
	log *frameLog
	results
	dir   string
	ctx   context.Context
	procs int
}

// CheckClient serves the scripted agent to the client and checks it.
func CheckClient(ctx context.Context, p *Profile, o ClientOptions) (*Report, error) {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	for _, c := range o.Categories {
		if !contains(ClientCategories, c) {
			return nil, fmt.Errorf("--category %q: not one of %s", c, strings.Join(ClientCategories, ", "))
		}
	}
	if _, err := expandAgent(o.Argv, o.Relay); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "acpgen-conform-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	r := &clientRun{p: p, o: o, log: newFrameLog(p), results: results{categories: o.Categories}, dir: dir, ctx: ctx}
	r.log.checker = "agent"
	r.log.gates = newGateCheck(p, true)
	r.log.procGates = map[string]*gateCheck{}
	bare, err := r.initResult(false)
	if err != nil {
		return nil, err
	}
	bareLabel := "agent advertises no capabilities"
	if !bytes.Equal(bare, r.plainInit()) {
		bareLabel = "agent advertises only the session baseline"
	}
	full, err := r.initResult(true)
	if err != nil {
		return nil, err
	}
	if r.wants("initialize", "frames", "gates") {
		if err := r.fresh(&script{label: bareLabel, init: bare, judgeInit: true}); err != nil {
			return nil, err
		}
	}
	if r.wants("requests", "unknown-method", "notifications", "frames", "gates") {
		if err := r.fresh(&script{label: "agent advertises every gated capability", init: full, probe: true}); err != nil {
			return nil, err
		}
	}
	if r.wants("exit") {
		if err := r.fresh(&script{label: "exit", init: bare, hangup: true}); err != nil {
			return nil, err
		}
	}
	for _, res := range r.log.results() {
		r.add(res)
	}
	return &Report{Profile: profileName(p), Command: o.Argv, Results: r.out}, nil
}

func profileName(p *Profile) string {
	name := p.Source + " (" + p.Channel + ")"
	for _, ov := range p.Overlays {
		name += " + " + ov.ID
	}
	return name
}

// add records a client case: an informational case that does not match is
// noted, not failed.
func (r *clientRun) add(res Result) {
	if res.Level == Info && (res.Verdict == Fail || res.Verdict == Warn) {
		res.Verdict = Noted
	}
	r.results.add(res)
}

// baseline are the methods one prompt turn needs: the run that advertises
// nothing else still grants the capabilities that gate them (v2:
// capabilities.session grants the baseline session methods).
var baseline = map[string]bool{"session/new": true, "session/prompt": true, "session/cancel": true}

// plainInit is the def's minimal initialize result with the profile's
// protocol version.
func (r *clientRun) plainInit() json.RawMessage {
	res := map[string]any{}
	_ = json.Unmarshal(r.p.example("InitializeResponse"), &res)
	res["protocolVersion"] = r.p.Protocol
	b, _ := json.Marshal(res)
	return b
}

// initResult is the scripted agent's initialize result: the def's minimal
// example with the profile's protocol version and the capabilities gating
// the baseline methods; with all set, every agent capability a gate of the
// profile names (under whichever member the schema's gates root them:
// agentCapabilities in v1, capabilities in v2).
func (r *clientRun) initResult(all bool) (json.RawMessage, error) {
	res := map[string]any{}
	_ = json.Unmarshal(r.plainInit(), &res)
	gates, _ := r.p.Model.ResolveGates(r.p.Gates)
	for _, g := range gates {
		if g.Cap.InResult && len(g.Cap.Tokens) >= 2 && (all || baseline[g.Method.Wire] && g.Row.Path == "") {
			r.grantIn(res, g)
		}
	}
	b, _ := json.Marshal(res)
	if vs, err := r.p.Violations("InitializeResponse", b); err != nil || len(vs) > 0 {
		return nil, fmt.Errorf("the scripted agent's initialize result is not valid against this schema: %v %v", vs, err)
	}
	return b, nil
}

// grantIn sets gate g's capability in the initialize result res: true, an
// object, or a list of one example item.
func (r *clientRun) grantIn(res map[string]any, g *ir.Gate) {
	toks := g.Cap.Tokens
	obj := res
	for _, t := range toks[:len(toks)-1] {
		next, ok := obj[t].(map[string]any)
		if !ok {
			next = map[string]any{}
			obj[t] = next
		}
		obj = next
	}
	var leaf any = map[string]any{}
	switch last := g.Cap.Leaf(); {
	case g.Cap.Bool:
		leaf = true
	case g.Cap.List && last.Elem != nil && last.Elem.Type != nil:
		var item any
		_ = json.Unmarshal(r.p.example(last.Elem.Type.Def), &item)
		leaf = []any{item}
	}
	if _, nested := obj[toks[len(toks)-1]].(map[string]any); !nested {
		obj[toks[len(toks)-1]] = leaf // an object keeps what deeper gates put in it
	}
}

// fresh starts the client with the relay in place of {agent}, waits for
// the relay to connect, and lets the script run to its end.
func (r *clientRun) fresh(s *script) error {
	r.procs++
	s.run, s.tag = r, fmt.Sprint(r.procs)
	s.cancels = map[string]chan struct{}{}
	sock := filepath.Join(r.dir, "agent"+s.tag+".sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return err
	}
	defer ln.Close()
	argv, err := expandAgent(r.o.Argv, append(append([]string(nil), r.o.Relay...), sock))
	if err != nil {
		return err
	}
	g := newGateCheck(r.p, true)
	g.grant(s.init)
	if !s.hangup {
		g.label = s.label
		r.log.mu.Lock()
		r.log.procGates[s.tag] = g
		r.log.mu.Unlock()
	}
	pe, err := startDetached(argv, func(f *frame) {
		r.log.see(s.tag, f)
		s.onFrame(f)
	})
	if err != nil {
		return err
	}
	defer pe.kill()
	s.pe = pe
	conn := accept(ln, r.o.Timeout, pe.exited)
	if conn == nil {
		res := mustCase(kindClientStarts, "", "starts the agent ("+s.label+")", "the command given as "+AgentToken+" is started")
		res.Observed, res.Verdict = "not started; stderr: "+lastLine(pe.stderr.String()), Fail
		r.add(res)
		return nil
	}
	s.conn = conn
	pe.attach(conn)
	s.drive()
	_ = conn.Close()
	// With the connection closed, what the script still sends fails at
	// once, and its turns end (they wait for the connection's end too).
	s.busy.Wait()
	select {
	case <-pe.exited:
	case <-time.After(r.o.Timeout):
	}
	s.judge()
	return nil
}

// accept waits for the relay to connect, or for the client to exit.
func accept(ln net.Listener, timeout time.Duration, exited <-chan struct{}) net.Conn {
	got := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			c = nil
		}
		got <- c
	}()
	select {
	case c := <-got:
		return c
	case <-exited:
	case <-time.After(timeout):
	}
	_ = ln.Close()
	if c := <-got; c != nil {
		return c
	}
	return nil
}

// gatedFor returns the capability the receiver did not grant that method
// m's params (given granted, the receiver's initialize message) would use.
func gatedFor(p *Profile, m *ir.Method, inResult bool, granted, params json.RawMessage) string {
	g := newGateCheck(p, inResult)
	g.grant(granted)
	g.check(m, false, params)
	for c := range g.violations {
		return c
	}
	return ""
}
