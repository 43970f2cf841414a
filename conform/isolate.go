package conform

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Isolation: each group of categories runs on its own agent process, and an
// agent that dies within a group is restarted (and initialized again) before
// the next case, so a crash fails the case that caused it and no other.

// Crash is an agent death: the case it died on, how it exited and the last
// line of its stderr.
type Crash struct {
	Category string `json:"category"`
	Case     string `json:"case"`
	Exit     string `json:"exit"`
	Stderr   string `json:"stderr,omitempty"`
	// after is the invalid params the process had accepted, or was
	// answering, when it died ("" when none).
	after string
}

// restart is what a proc does when its agent has died.
type restart struct {
	on     bool  // start it again before the next request
	reinit bool  // and initialize it
	gen    int   // how many times it was restarted
	down   error // set when a restart failed: the group's later cases are not run
	noted  string
}

// phase is a group of categories that share one agent process.
type phase struct {
	cats []string
	run  func(*proc)
	// named runs the phase only when one of cats is selected by name (not
	// the robustness group that other categories bring along).
	named bool
}

// categories runs each group of the main categories on a fresh agent,
// initialized first; the initialize case itself ran in handshake.
func (r *agentRun) categories() error {
	if r.caps == nil {
		return nil
	}
	for _, ph := range []phase{
		{[]string{"unknown-method"}, r.unknownMethods, false},
		{[]string{"methods", "order"}, func(c *proc) { r.methods(c); r.sessionChecks(c); r.logout(c) }, false},
		{[]string{"cancel", "order"}, func(c *proc) {
			r.cancel(c)
			r.loadReplay(c)
			r.resumeReplay(c)
			r.resumeWithoutReplay(c)
			r.closeTurn(c)
		}, false},
		{[]string{"malformed"}, r.malformed, false},
		{[]string{"batch"}, r.batches, false},
		{[]string{"rfd"}, r.rfd, false},
		{[]string{"persistence"}, r.restartCases, false},
		// Invalid params last, on a process of their own: what they do to
		// the agent cannot change a verdict on valid traffic.
		{[]string{"methods", "robustness"}, r.mutantPhase, true},
	} {
		if !r.wants(ph.cats...) || (ph.cats[0] == "rfd" && len(r.p.Overlays) == 0) || (ph.cats[0] == "persistence" && !r.o.Restart) {
			continue
		}
		if ph.named && len(r.results.categories) > 0 && !slices.ContainsFunc(ph.cats, func(c string) bool { return contains(r.results.categories, c) }) {
			continue
		}
		if err := r.fresh(func(c *proc) { r.initialized(c, ph) }); err != nil {
			return err
		}
	}
	return nil
}

// initialized initializes c, then runs the group's cases on it, restarting
// it after a crash.
func (r *agentRun) initialized(c *proc, ph phase) {
	c.restart = restart{on: true, reinit: true}
	f, err := c.request("initialize", r.params)
	if err != nil || f.Error != nil || f.Result == nil {
		all := mustCase(kindInitialized, ph.cats[0], "(all)", "an initialized connection")
		all.Observed, all.Verdict = "not run: initialize gave "+errOr(err, f), Fail
		r.add(all)
		return
	}
	c.login()
	ph.run(c)
}

// dying reports whether the agent exited or closed its input.
func (c *proc) dying() bool {
	c.mu.Lock()
	broken := c.broken
	c.mu.Unlock()
	return broken || isClosed(c.exited)
}

// ensure restarts a dead agent when the proc restarts them; an error means
// the case cannot run (the restarted agent did not initialize).
func (c *proc) ensure() error {
	if c.down != nil {
		return c.down
	}
	if !c.on || !c.dying() {
		return nil
	}
	return c.relaunch()
}

// relaunch starts the agent's command again in place of the current
// process (killed first), initialized and logged in when the proc
// reinitializes; an error means the group's later cases cannot run.
func (c *proc) relaunch() error {
	c.peer.kill()
	r := c.run
	r.procs++
	tag := fmt.Sprint(r.procs)
	pe, err := start(r.o.Argv, func(f *frame) { r.log.see(tag, f) }, r.answer)
	if err != nil {
		c.down = err
		return err
	}
	c.peer, c.tag = pe, tag
	c.gen++
	if !c.reinit {
		return nil
	}
	f, err := c.roundTrip("initialize", r.params)
	if err != nil || f.Error != nil || f.Result == nil {
		c.down = fmt.Errorf("not run: the agent, restarted after a crash, did not initialize: %s%s", errOr(err, f), c.deathNote())
		return c.down
	}
	c.login()
	return nil
}

// roundTrip sends a request and waits for its response, on the agent as it
// is (no restart).
func (c *proc) roundTrip(method string, params json.RawMessage) (*frame, error) {
	if method == replayMethod || method == "session/resume" {
		c.run.log.keys.reset(c.tag, sessionOf(&frame{Params: params}))
	}
	seq, mutant := c.seq(), c.mutant
	id, err := c.sendLogged(method, params, func(id string) {
		c.run.log.expect(c.tag, id, method)
		if mutant != "" {
			c.run.log.expectMutant(c.tag, id, mutant)
		}
	})
	if err != nil {
		return nil, err
	}
	f, err := c.response(c.run.ctx, c.run.o.Timeout, seq, id)
	if err != nil && err != errExited {
		err = fmt.Errorf("%w%s", err, c.strayAnswers(seq))
	}
	return f, err
}

// strayAnswers names the responses since seq that answer no request of the
// checker's: one of them may be the answer the checker waited for, with
// the wrong id, or none (JSON-RPC 2.0 §5: the id is the request's).
func (c *proc) strayAnswers(seq int) string {
	var stray []string
	for _, f := range c.since(seq) {
		if f.Method != "" || f.Bad != "" || f.Batch != nil || (f.Result == nil && f.Error == nil) {
			continue
		}
		id := strings.TrimSpace(string(f.ID))
		switch {
		case id == "" || id == "null":
			stray = append(stray, "a response without an id: "+describe(f))
		case !c.run.log.sentID(c.tag, id):
			stray = append(stray, "a response with id "+id+", which matches no request: "+describe(f))
		}
	}
	if len(stray) == 0 {
		return ""
	}
	return "; meanwhile " + strings.Join(stray, "; ")
}

// died adds to a failed request's error how the agent exited, if it did,
// and records its death once, for the case that reports this error.
func (c *proc) died(err error) error {
	note := c.deathNote()
	if note == "" {
		return err
	}
	if c.noted != c.tag {
		c.noted = c.tag
		crash := &Crash{Exit: "closed its input", after: c.run.log.blame(c.tag)}
		if st := c.state; isClosed(c.exited) && st != nil {
			crash.Exit = st.String()
		}
		if e := strings.TrimSpace(c.stderr.String()); e != "" {
			crash.Stderr = lastLine(e)
		}
		c.run.pending = crash
	}
	return fmt.Errorf("%w%s", err, note)
}

// deathNote says, when the agent is dying, how it exited and the last line
// of its stderr. It waits for the exit and for stderr to be read to its end
// rather than for a fixed time, so a loaded machine loses neither.
func (c *proc) deathNote() string {
	if !c.dying() {
		return ""
	}
	select {
	case <-c.exited:
	case <-time.After(c.run.o.Timeout):
		return "; the agent closed its input"
	}
	select {
	case <-c.stderrDone:
	case <-time.After(drainWait):
	}
	note := "; the agent exited"
	if st := c.state; st != nil {
		note += " (" + st.String() + ")"
	}
	if e := strings.TrimSpace(c.stderr.String()); e != "" {
		note += "; stderr: " + lastLine(e)
	}
	return note
}

// writeCrashes lists the agent deaths under the tables.
func writeCrashes(w io.Writer, crashes []Crash) {
	for _, k := range crashes {
		line := fmt.Sprintf("agent died on %s case %q: %s", k.Category, k.Case, k.Exit)
		if k.Stderr != "" {
			line += "; stderr: " + k.Stderr
		}
		fmt.Fprintln(w, line)
	}
}

// swapSession replaces a session id in params made for another process.
func swapSession(params json.RawMessage, from, to string) json.RawMessage {
	if from == "" || from == to {
		return params
	}
	old, _ := json.Marshal(from)
	repl, _ := json.Marshal(to)
	return json.RawMessage(strings.ReplaceAll(string(params), string(old), string(repl)))
}
