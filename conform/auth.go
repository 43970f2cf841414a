package conform

import (
	"encoding/json"
	"fmt"
	"strings"
)

// authRequired is the schema's "Authentication required" error code: an
// agent answers it to session creation until the client authenticates.
const authRequired = -32000

// authState is what the run learnt about the agent's authentication.
type authState struct {
	// refused is the agent's first -32000 answer to a valid request
	// (session/new, or session/prompt on a session it created), with the
	// method it answered: "session/new answered error -32000 ...".
	refused string
}

// loginMethod is the method that authenticates: v1's authenticate, v2's
// auth/login.
func (r *agentRun) loginMethod() string {
	for _, w := range []string{"auth/login", "authenticate"} {
		if r.p.Method(w) != nil {
			return w
		}
	}
	return ""
}

// authenticate runs the login the user chose (--auth-method) right after
// initialize, so that session-dependent cases can run. Its case is
// informational: an agent may need a login the checker cannot complete.
func (r *agentRun) authenticate(c *proc) {
	if r.o.AuthMethod == "" {
		return
	}
	method := r.loginMethod()
	res := Result{Category: "initialize", Case: "authenticates with --auth-method " + r.o.AuthMethod, Level: Info,
		Source: srcAuth, Expected: "a result from " + method}
	if method == "" {
		res.Verdict, res.Observed = Noted, "this profile has no authentication method"
		r.add(res)
		return
	}
	f, err := c.request(method, r.loginParams())
	switch {
	case err != nil:
		res.Verdict, res.Observed = Fail, err.Error()
	case f.Error != nil:
		res.Verdict, res.Observed = Fail, describe(f)
	default:
		res.Verdict, res.Observed = Pass, describe(f)
	}
	r.add(res)
}

func (r *agentRun) loginParams() json.RawMessage {
	params, _ := json.Marshal(map[string]string{"methodId": r.o.AuthMethod})
	return params
}

// login authenticates an agent process started for a group of cases or
// restarted after a crash, as authenticate did the first; its outcome is
// authenticate's case, and a refusal shows as blocked cases.
func (c *proc) login() {
	if method := c.run.loginMethod(); c.run.o.AuthMethod != "" && method != "" {
		_, _ = c.roundTrip(method, c.run.loginParams())
	}
}

// refusedBy notes a -32000 answer to a valid request of method: a case the
// refusal kept from running is blocked from then on. Agents refuse session
// creation, or create sessions and refuse their prompts.
func (r *agentRun) refusedBy(method string, f *frame) {
	if codeIs(f, authRequired) {
		r.noteRefusal(method + " answered " + describe(f))
	}
}

// noteRefusal keeps the run's first refusal, which the hint names.
func (r *agentRun) noteRefusal(refusal string) {
	if r.auth.refused == "" {
		r.auth.refused = refusal
	}
}

// blockRefusedTurn blocks the order cases recorded from the n-th result on
// when the prompt turn they judged was a refusal: a v1 prompt answered
// -32000, or a v2 turn that ended idle with a -32000 error (claude-agent-acp
// without credentials). No turn ran, so their verdicts claim nothing.
func (r *agentRun) blockRefusedTurn(c *proc, session string, resp *frame, seq, n int) {
	refusal := idleRefusal(c, session, seq)
	if codeIs(resp, authRequired) {
		refusal = "session/prompt answered " + describe(resp)
	}
	if refusal == "" {
		return
	}
	r.noteRefusal(refusal)
	for i := n; i < len(r.out); i++ {
		if r.out[i].Category == "order" {
			r.out[i].Verdict, r.out[i].Observed = Blocked, "blocked: "+refusal
		}
	}
}

// idleRefusal is the -32000 error an idle state_update of session after seq
// carries ("" when none does).
func idleRefusal(c *proc, session string, seq int) string {
	for _, f := range c.since(seq) {
		if s, ok := stateOf(f, session); !ok || s.State != "idle" {
			continue
		}
		var p struct {
			Update struct {
				Error *rpcError `json:"error"`
			} `json:"update"`
		}
		if json.Unmarshal(f.Params, &p) != nil {
			continue
		}
		if idle := (&frame{Error: p.Update.Error}); codeIs(idle, authRequired) {
			return "session/prompt's turn ended idle with " + describe(idle)
		}
	}
	return ""
}

// hint says how to unblock the run: authenticate first, with one of the
// methods the agent listed in its initialize result.
func (r *agentRun) hint() string {
	if r.auth.refused == "" {
		return ""
	}
	var res struct {
		AuthMethods []struct {
			ID       string `json:"id"`       // v1
			MethodID string `json:"methodId"` // v2
		} `json:"authMethods"`
	}
	_ = json.Unmarshal(r.caps, &res)
	var ids []string
	for _, m := range res.AuthMethods {
		ids = append(ids, m.ID+m.MethodID)
	}
	lists := "the agent lists no authMethods"
	if len(ids) > 0 {
		lists = fmt.Sprintf("the agent lists authMethods [%s]", strings.Join(ids, ", "))
	}
	if r.o.AuthMethod != "" {
		return fmt.Sprintf("%s after --auth-method %s; %s", r.auth.refused, r.o.AuthMethod, lists)
	}
	return fmt.Sprintf("%s: authenticate first: --auth-method ID; %s", r.auth.refused, lists)
}

const srcAuthIDs = "schema: AuthMethod id (\"Unique identifier for this authentication method\")"

// authMethodIDs expects the authMethods the agent lists to have distinct
// ids (v1 id, v2 methodId): the client names one by its id.
func (r *agentRun) authMethodIDs() {
	var res struct {
		AuthMethods []struct {
			ID       string `json:"id"`
			MethodID string `json:"methodId"`
		} `json:"authMethods"`
	}
	if json.Unmarshal(r.caps, &res) != nil || len(res.AuthMethods) == 0 {
		return
	}
	out := shouldCase(kindAuthIDs, "authMethods have distinct ids", "", "each id listed once")
	seen, dup := map[string]bool{}, ""
	for _, m := range res.AuthMethods {
		id := m.ID + m.MethodID
		if seen[id] && dup == "" {
			dup = id
		}
		seen[id] = true
	}
	out.Verdict, out.Observed = Pass, fmt.Sprintf("%d ids, distinct", len(seen))
	if dup != "" {
		out.Verdict, out.Observed = Fail, fmt.Sprintf("id %q listed twice", dup)
	}
	r.add(out)
}
