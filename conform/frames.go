package conform

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/acpgen/acpgen/runtime/proxychain"
)

// frameLog validates every frame a peer writes, by what it is: the result
// of a request the checker sent (against the method's result def), a
// request or notification of the peer's (against its params def), or an
// error object (JSON-RPC's shape). It also runs the capability gates.
type frameLog struct {
	p  *Profile
	mu sync.Mutex
	// sent maps request ids to methods, per process; answeredIDs holds
	// those a response answered.
	sent        map[string]string
	answeredIDs map[string]bool
	// loose holds request ids whose answer other cases judge (a batch's,
	// which a single -32600 may answer): not counted as unanswered.
	loose map[string]bool
	// kinds are what was validated ("result of session/new"), with how many
	// frames and the violations found.
	kinds map[string]*frameKind
	gates *gateCheck
	// checker is the side the checker plays: the peer's requests must be
	// methods that side handles.
	checker string
	// procGates, when set, are the gates of one process (by tag), for runs
	// whose processes were granted different capabilities.
	procGates map[string]*gateCheck
	// versions holds the protocol version each process negotiated.
	versions map[string]int
	// keys judges the ids keyed session updates name.
	keys *keyedIDs
	// mutants maps the ids of invalid-params requests (proc#id) to their
	// case; outstanding and accepted hold, per process, the one awaiting
	// its answer and the last one answered with a result.
	mutants, outstanding, accepted map[string]string
	// robust holds, per invalid-params case, the schema violations of the
	// frames blamed on it (see blame).
	robust     map[string]*frameKind
	robustMust bool
	// custom judges the values the agent gives open unions.
	custom *customValues
}

type frameKind struct {
	def        string
	n          int
	violations []string
}

func newFrameLog(p *Profile) *frameLog {
	return &frameLog{p: p, sent: map[string]string{}, answeredIDs: map[string]bool{}, loose: map[string]bool{}, kinds: map[string]*frameKind{}, gates: newGateCheck(p, false), checker: "client", keys: newKeyedIDs(),
		mutants: map[string]string{}, outstanding: map[string]string{}, accepted: map[string]string{}, robust: map[string]*frameKind{},
		custom: newCustomValues(p)}
}

func (l *frameLog) gatesOf(proc string) *gateCheck {
	l.mu.Lock()
	defer l.mu.Unlock()
	if g := l.procGates[proc]; g != nil {
		return g
	}
	return l.gates
}

// expect records that a request with this id (per process tag) was sent.
func (l *frameLog) expect(proc, id, method string) {
	l.mu.Lock()
	l.sent[proc+"#"+id] = method
	l.mu.Unlock()
}

// unanswered lists the requests of proc that no response answered, as
// "id method", sorted by id.
func (l *frameLog) unanswered(proc string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for key, method := range l.sent {
		tag, id, _ := strings.Cut(key, "#")
		if tag == proc && method != "" && !l.answeredIDs[key] && !l.loose[key] {
			out = append(out, id+" "+method)
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) < len(out[j]) || len(out[i]) == len(out[j]) && out[i] < out[j] })
	return out
}

// settled records, once proc has ended, whether each of its requests was
// answered: the frames case of valid traffic, or for an invalid-params
// request the robustness group's (returned: the cases it left unanswered).
func (l *frameLog) settled(proc string) (mutants []string) {
	open := map[string]bool{}
	for _, r := range l.unanswered(proc) {
		open[r] = true
	}
	l.mu.Lock()
	var reqs []string
	for key, method := range l.sent {
		if tag, id, _ := strings.Cut(key, "#"); tag == proc && method != "" && !l.loose[key] {
			reqs = append(reqs, id+" "+method)
		}
	}
	l.mu.Unlock()
	sort.Strings(reqs)
	for _, r := range reqs {
		id, method, _ := strings.Cut(r, " ")
		if !open[r] {
			l.add("requests answered", "")
			continue
		}
		l.mu.Lock()
		name, mutant := l.mutants[proc+"#"+id]
		l.mu.Unlock()
		if mutant {
			mutants = append(mutants, name)
			continue
		}
		l.add("requests answered", "", fmt.Sprintf("%s (id %s) never answered", method, id))
	}
	return mutants
}

// sentID reports whether the checker sent a request with id (a response's
// raw id) on proc.
func (l *frameLog) sentID(proc, id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.sent[proc+"#"+strings.Trim(id, `"`)]
	return ok
}

// expectMutant records that the request id (per process tag) sends the
// invalid params of case name.
func (l *frameLog) expectMutant(proc, id, name string) {
	l.mu.Lock()
	l.mutants[proc+"#"+id] = name
	l.outstanding[proc] = name
	l.mu.Unlock()
}

// mutantsSent is how many invalid-params requests were sent.
func (l *frameLog) mutantsSent() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.mutants)
}

// answered notes the answer to a request: an invalid-params request
// answered with a result was accepted.
func (l *frameLog) answered(proc string, f *frame) {
	l.mu.Lock()
	defer l.mu.Unlock()
	name, ok := l.mutants[proc+"#"+strings.Trim(string(f.ID), `"`)]
	if !ok {
		return
	}
	if l.outstanding[proc] == name {
		delete(l.outstanding, proc)
	}
	if f.Error == nil {
		l.accepted[proc] = name
	}
}

// blame is the invalid-params case a frame of proc follows: the one it is
// answering, else the last it accepted; "" when none. A schema violation
// in such a frame may echo the invalid value the checker sent, so it is
// judged in the robustness group, not as a defect of valid traffic.
func (l *frameLog) blame(proc string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if name := l.outstanding[proc]; name != "" {
		return name
	}
	return l.accepted[proc]
}

// expectLoose is expect for a request whose answer other cases judge.
func (l *frameLog) expectLoose(proc, id, method string) {
	l.expect(proc, id, method)
	l.mu.Lock()
	l.loose[proc+"#"+id] = true
	l.mu.Unlock()
}

func (l *frameLog) add(kind, def string, problems ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.addTo(l.kinds, kind, def, problems)
}

func (l *frameLog) addTo(kinds map[string]*frameKind, kind, def string, problems []string) {
	k := kinds[kind]
	if k == nil {
		k = &frameKind{def: def}
		kinds[kind] = k
	}
	k.n++
	for _, pr := range problems {
		if len(k.violations) < 8 {
			k.violations = append(k.violations, pr)
		}
	}
}

// see is the onFrame hook of one process.
func (l *frameLog) see(proc string, f *frame) {
	var env struct {
		JSONRPC *string `json:"jsonrpc"`
	}
	if f.Batch != nil {
		l.seeBatch(proc, f)
		return
	}
	l.responseChecks(proc, f)
	if f.Bad != "" {
		l.add("lines", "", f.Bad)
		return
	}
	_ = json.Unmarshal(f.Raw, &env)
	if env.JSONRPC == nil || *env.JSONRPC != "2.0" {
		l.add("lines", "", `"jsonrpc" is not "2.0"`)
	} else {
		l.add("lines", "")
	}
	if f.Method == "" && len(f.ID) > 0 {
		l.answered(proc, f)
	}
	switch {
	case f.Method != "":
		l.peerMessage(proc, f)
	case f.Error != nil:
		var probs []string
		if f.Error.Code == nil {
			probs = append(probs, "/error/code: missing")
		}
		if f.Error.Message == nil {
			probs = append(probs, "/error/message: missing")
		}
		l.add("error responses", "", probs...)
	case len(f.ID) > 0 && f.Result != nil:
		// (Neither result nor error is the envelope's defect alone.)
		l.mu.Lock()
		method := l.sent[proc+"#"+strings.Trim(string(f.ID), `"`)]
		l.mu.Unlock()
		m := l.p.Method(method)
		if m == nil || m.Result == nil {
			return // a reply to a frame the checker sent on purpose
		}
		if method == "initialize" {
			l.negotiate(proc, f.Result)
			l.custom.initialized(f.Result)
		}
		if l.validate(proc, "result of "+method, m.Result.Def, f.Result, "/result") {
			l.gatesOf(proc).check(m, true, f.Result)
		}
	}
}

// seeBatch judges a batch line entry by entry. JSON-RPC 2.0 §6: a batch's
// answer is never an empty array.
func (l *frameLog) seeBatch(proc string, f *frame) {
	if len(f.Batch) == 0 {
		l.add("lines", "", "an empty array (JSON-RPC 2.0 §6: never an empty array)")
		return
	}
	for _, g := range f.Batch {
		l.see(proc, g)
	}
}

func (l *frameLog) peerMessage(proc string, f *frame) {
	// The Rust SDK's Proxy Chains names are the schema's methods, not
	// extensions: a proxy that takes the checker for its conductor is
	// reported in either dialect.
	m := l.p.Method(proxychain.Canonical(f.Method))
	kind := "requests"
	if len(f.ID) == 0 {
		kind = "notifications"
	}
	switch {
	case m == nil && proxychain.Reserved(f.Method):
		l.add(kind+" of unknown methods", "", fmt.Sprintf("%s: a Proxy Chains method, for a conductor; the checker is a client", f.Method))
	case m == nil && strings.HasPrefix(f.Method, "_"):
		l.add("extension "+kind, "")
	case m == nil:
		l.add(kind+" of unknown methods", "", fmt.Sprintf("%s: not a method of this schema", f.Method))
	case m.Side != l.checker:
		l.add(kind+" of unknown methods", "", fmt.Sprintf("%s: handled by the %s, not the %s", f.Method, m.Side, l.checker))
	default:
		if l.validate(proc, "params of "+f.Method, m.Params.Def, f.Params, "/params") {
			l.gatesOf(proc).check(m, false, f.Params)
		}
		if f.Method == "session/update" {
			l.keys.see(proc, l.versionOf(proc), f)
			l.custom.update(f.Params)
		}
	}
}

// validate checks payload against def in the schema of the protocol version
// proc negotiated; false when that is not the profile's (its gates do not
// apply).
func (l *frameLog) validate(proc, kind, def string, payload json.RawMessage, at string) bool {
	if len(payload) == 0 {
		payload = json.RawMessage("null")
	}
	ref, suffix := l.schemaOf(proc)
	if ref == nil {
		return false
	}
	vs, err := ref.Violations(def, payload)
	if err != nil {
		l.add(kind+suffix, def, fmt.Sprintf("%s: cannot judge: %v", at, err))
		return suffix == ""
	}
	var probs []string
	for _, v := range vs {
		probs = append(probs, fmt.Sprintf("%s%s: %s", at, v.Pointer, v.Reason))
	}
	if blamed := l.blame(proc); blamed != "" && len(probs) > 0 {
		l.mu.Lock()
		l.addTo(l.robust, blamed, "", []string{kind + ": " + strings.Join(probs, "; ")})
		l.mu.Unlock()
		probs = nil
	}
	l.add(kind+suffix, def, probs...)
	return suffix == ""
}

// results turns the log into one case per kind of frame seen, then the
// gates' cases.
func (l *frameLog) results() []Result {
	out := append(l.frameResults(), l.keys.results()...)
	out = append(out, l.robustResults()...)
	out = append(out, l.custom.results()...)
	if l.procGates == nil || l.checker == "client" {
		// An agent run's processes share the run's grant, but for those
		// given their own (procGates).
		out = append(out, l.gates.results("")...)
	}
	tags := make([]string, 0, len(l.procGates))
	for t := range l.procGates {
		tags = append(tags, t)
	}
	sort.Strings(tags)
	for _, t := range tags {
		out = append(out, l.procGates[t].results(l.procGates[t].label)...)
	}
	return out
}

func (l *frameLog) frameResults() []Result {
	l.mu.Lock()
	defer l.mu.Unlock()
	names := make([]string, 0, len(l.kinds))
	for k := range l.kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []Result
	for _, name := range names {
		k := l.kinds[name]
		kind, expected := frameMustKind(name), "valid "+k.def
		switch {
		case strings.HasPrefix(name, mismatchKind):
			expected = "a protocol version this release has a schema for"
		case name == "lines":
			expected = "every line a JSON-RPC 2.0 message"
		case name == "error responses":
			expected = "error objects with integer code and string message"
		case strings.HasSuffix(name, "of unknown methods"):
			expected = "only methods the " + l.checker + " handles, or _extensions"
		case frameRules[name] != "":
			expected = frameRules[name]
		case strings.HasPrefix(name, "extension"):
			expected = "extension methods (not checked)"
		}
		r := Result{Category: "frames", Case: name, Level: Info, Source: srcVersion, Expected: expected}
		if kind != "" {
			r = mustCase(kind, "", fmt.Sprintf("%s (%d)", name, k.n), expected)
		}
		r.Verdict, r.Observed = Pass, "all valid"
		if len(k.violations) > 0 {
			r.Verdict, r.Observed = Fail, strings.Join(k.violations, "; ")
		}
		out = append(out, r)
	}
	return out
}

// robustResults are the robustness cases of the frames blamed on invalid
// params the agent was sent: judged at the level of those params' case
// (SHOULD), or at MUST with RobustnessMust.
func (l *frameLog) robustResults() []Result {
	l.mu.Lock()
	defer l.mu.Unlock()
	names := make([]string, 0, len(l.robust))
	for name := range l.robust {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []Result
	if len(names) == 0 && len(l.mutants) > 0 {
		out = append(out, Result{Category: "robustness", Case: "valid frames after invalid params", Level: Should, Source: srcRPCParams,
			Expected: "frames valid against the schema (no invalid value echoed)", Observed: "all valid", Verdict: Pass})
	}
	for _, name := range names {
		c, expected := "valid frames after accepting invalid params: "+name, "frames valid against the schema (no invalid value echoed)"
		r := Result{Category: "robustness", Case: c, Level: Should, Source: srcRPCParams, Expected: expected}
		if l.robustMust {
			r = mustCase(kindSchema, "", c, expected)
			r.Category = "robustness"
		}
		r.Verdict, r.Observed = Fail, strings.Join(l.robust[name].violations, "; ")
		out = append(out, r)
	}
	return out
}
