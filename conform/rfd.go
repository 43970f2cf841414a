package conform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/acpgen/acpgen/generator/facts"
	"github.com/acpgen/acpgen/generator/ir"
)

// The rfd category checks what the profile's overlays say beyond the schema's
// shapes: the string rules they add to request members (absolute roots),
// members that must stay out of durable history (runtimeContext), and list
// filters (session/list). Every case comes from the IR of the merged schema:
// a profile without overlays has none.

// replayMethod is the ACP method that replays a session's history to the
// client (session/load streams the conversation back before answering), so
// it is where a member kept out of durable history must not reappear.
const replayMethod = "session/load"

// marker is the text the checker puts into members that must not be stored.
const marker = "acpgen-conform-ephemeral-7f3c"

func (r *agentRun) rfd(c *proc) {
	if len(r.p.Overlays) == 0 {
		return
	}
	for _, m := range r.p.Model.Methods {
		if m.Side != "agent" || m.Notification || m.Params == nil {
			continue
		}
		for _, f := range m.Params.Fields {
			if len(f.Overlay) == 0 {
				continue
			}
			if f.Ephemeral {
				r.ephemeral(c, m, f)
			} else {
				r.stringRules(c, m, f)
			}
		}
	}
	for _, flt := range r.p.Semantics.Filters {
		r.filter(c, flt)
	}
}

// source names the overlay a member comes from, for the report.
func (r *agentRun) source(f *ir.Field) string {
	if len(f.Overlay) > 0 {
		return r.overlaySource(f.Overlay[0])
	}
	return "overlay"
}

// skip records that a case was not run because the agent withholds what it
// needs.
func (r *agentRun) skip(name, src, why string) {
	r.add(Result{Category: "rfd", Case: name, Level: r.overlayLevel(), Source: src, Expected: "-", Observed: why, Verdict: Skipped})
}

// stringRules sends, for a string member (or array of strings) the overlay
// constrains, one value breaking each constraint the IR gives it (empty
// below minLength, a relative path against the absolute-path pattern): the
// agent must refuse the request, with -32602 recommended.
func (r *agentRun) stringRules(c *proc, m *ir.Method, f *ir.Field) {
	ref, ptr := f.Ref, "/"+f.JSON
	if ref != nil && ref.Kind == ir.Array {
		ref, ptr = ref.Elem, ptr+"/0"
	}
	if ref == nil || ref.Kind != ir.String || (ref.Pattern == "" && ref.MinLength == nil) {
		return
	}
	src := r.source(f)
	for _, bad := range breaking(ref) {
		name := fmt.Sprintf("%s %s %s", m.Wire, ptr, bad.what)
		if cap, ok := r.gated(m); ok {
			r.skip(name, src, "the agent does not advertise "+cap)
			continue
		}
		if cap, ok := r.withheld(m, "/"+f.JSON); ok {
			r.skip(name, src, "the agent does not advertise "+cap)
			continue
		}
		valid, err := r.liveParams(c, m)
		if err != nil {
			r.add(Result{Category: "rfd", Case: name, Level: r.overlayLevel(), Source: src, Expected: "a live session", Observed: err.Error(), Verdict: Fail})
			continue
		}
		params := withMember(valid, f, ptr != "/"+f.JSON, bad.value)
		if ok, err := r.p.ref.Valid(m.Params.Def, params); err != nil || ok {
			continue // the schema lets it through: not this rule's case
		}
		res := Result{Category: "rfd", Case: name, Level: r.overlayLevel(), Source: src, Expected: "error (-32602 recommended)"}
		resp, err := c.request(m.Wire, params)
		switch {
		case err != nil:
			res.Verdict, res.Observed = Fail, err.Error()
		case codeIs(resp, -32602):
			res.Verdict, res.Observed = Pass, describe(resp)
		case resp.Error != nil:
			res.Verdict, res.Observed = Warn, describe(resp)
		default:
			res.Verdict, res.Observed = Fail, describe(resp)
		}
		r.add(res)
	}
}

type badString struct{ what, value string }

// breaking returns a value breaking each string constraint of ref.
func breaking(ref *ir.Ref) []badString {
	var out []badString
	if ref.MinLength != nil && *ref.MinLength > 0 {
		out = append(out, badString{"empty (minLength)", ""})
	}
	if ref.Pattern == "" {
		return out
	}
	re, err := regexp.Compile(ref.Pattern)
	if err != nil {
		return out
	}
	what := "breaks its pattern"
	if ref.PatternName != "" {
		what = "not " + ref.PatternName
	}
	for _, v := range []string{"relative/path", "x", "0"} {
		if !re.MatchString(v) && (ref.MinLength == nil || len(v) >= *ref.MinLength) {
			return append(out, badString{what + " (" + v + ")", v})
		}
	}
	return out
}

// liveParams are valid params of m on a fresh session of the agent.
func (r *agentRun) liveParams(c *proc, m *ir.Method) (json.RawMessage, error) {
	session := ""
	if m.Wire != "session/new" {
		s, _, err := r.newSession(c)
		if err != nil {
			return nil, err
		}
		session = s
	}
	return r.fill(m.Params, r.p.example(m.Params.Def), session, promptText), nil
}

// withMember sets member f of params to value, or to a one-item list of it.
func withMember(params json.RawMessage, f *ir.Field, list bool, value any) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(params, &obj) != nil {
		return params
	}
	if list {
		value = []any{value}
	}
	obj[f.JSON], _ = json.Marshal(value)
	b, _ := json.Marshal(obj)
	return b
}

// ephemeral sends member f (kept out of durable history) with a marker in
// every string, then replays the session and expects no trace of it.
func (r *agentRun) ephemeral(c *proc, m *ir.Method, f *ir.Field) {
	name := fmt.Sprintf("%s /%s stays out of %s replay", m.Wire, f.JSON, replayMethod)
	src := r.source(f)
	load := r.p.Method(replayMethod)
	switch cap, gated := r.withheld(m, "/"+f.JSON); {
	case gated:
		r.skip(name, src, "the agent does not advertise "+cap)
		return
	case load == nil:
		r.skip(name, src, "the schema has no "+replayMethod)
		return
	}
	if cap, gated := r.gated(load); gated {
		r.skip(name, src, "the agent does not advertise "+cap)
		return
	}
	res := Result{Category: "rfd", Case: name, Level: r.overlayLevel(), Source: src, Expected: "no session/update of the replay carries the member's text"}
	defer func() { r.add(res) }()
	session, _, err := r.newSession(c)
	if err != nil {
		res.Verdict, res.Observed = Fail, err.Error()
		return
	}
	valid := r.fill(m.Params, r.p.example(m.Params.Def), session, promptText)
	params := withMember(valid, f, false, r.marked(f.Ref))
	if resp, err := c.request(m.Wire, params); err != nil || resp.Error != nil {
		res.Verdict, res.Observed = Fail, fmt.Sprintf("%s with %s: %s", m.Wire, f.JSON, errOr(err, resp))
		return
	}
	seq := c.seq()
	resp, err := c.request(load.Wire, r.fill(load.Params, r.p.example(load.Params.Def), session, ""))
	if err != nil || resp.Error != nil {
		res.Verdict, res.Observed = Warn, replayMethod+": "+errOr(err, resp)
		return
	}
	replayed := 0
	for _, u := range c.since(seq) {
		if u.Method != "session/update" || u.Seq > resp.Seq {
			continue
		}
		replayed++
		if bytes.Contains(u.Raw, []byte(marker)) {
			res.Verdict, res.Observed = Fail, "replayed: "+string(u.Raw)
			return
		}
	}
	res.Verdict, res.Observed = Pass, plural(replayed, "update")+" replayed, none with it"
}

func errOr(err error, f *frame) string {
	if err != nil {
		return err.Error()
	}
	return describe(f)
}

// marked is a valid value of ref (its type's example) with every string set
// to the marker.
func (r *agentRun) marked(ref *ir.Ref) any {
	switch {
	case ref == nil:
		return marker
	case ref.Kind == ir.Array:
		return []any{r.marked(ref.Elem)}
	case ref.Kind == ir.Named && ref.Type != nil:
		var v any
		if json.Unmarshal(r.p.example(ref.Type.Def), &v) != nil {
			return marker
		}
		return markStrings(v)
	}
	return marker
}

func markStrings(v any) any {
	switch x := v.(type) {
	case string:
		return marker
	case []any:
		for i := range x {
			x[i] = markStrings(x[i])
		}
	case map[string]any:
		for k := range x {
			if k != "type" { // keep discriminators
				x[k] = markStrings(x[k])
			}
		}
	}
	return v
}

// filter makes two sessions that differ in every filtering member, lists
// with the first one's values, and expects only matching items, including
// the first session unless the list is paged.
func (r *agentRun) filter(c *proc, flt facts.Filter) {
	var list, create *ir.Method
	for _, m := range r.p.Model.Methods {
		if m.Side == "agent" && !m.Notification && m.Params != nil && m.Params.Def == flt.Request {
			list = m
		}
	}
	create = r.p.Method("session/new")
	if list == nil || create == nil {
		return
	}
	name := fmt.Sprintf("%s filters %s by %s", list.Wire, flt.Item, memberNames(flt))
	src := r.overlaySource(flt.Source)
	if cap, gated := r.gated(list); gated {
		r.skip(name, src, "the agent does not advertise "+cap)
		return
	}
	res := Result{Category: "rfd", Case: name, Level: r.overlayLevel(), Source: src, Expected: "only matching items, the matching session among them"}
	defer func() { r.add(res) }()
	want, err := r.filterSessions(c, list, create, flt)
	if err != nil {
		res.Verdict, res.Observed = Fail, err.Error()
		return
	}
	resp, err := c.request(list.Wire, want.params)
	if err != nil || resp.Error != nil {
		res.Verdict, res.Observed = Fail, errOr(err, resp)
		return
	}
	res.Verdict, res.Observed = judgeList(resp.Result, flt, want)
}

func memberNames(flt facts.Filter) string {
	var names []string
	for _, m := range flt.Members {
		names = append(names, m.Name)
	}
	return strings.Join(names, " and ")
}

// wanted is a filter the checker lists with and what it must match.
type wanted struct {
	params  json.RawMessage
	values  map[string]json.RawMessage // filtering member -> value
	session string                     // the session that matches
}

// filterSessions creates the matching session and one that differs in
// every filtering member the agent accepts, and returns the list params.
func (r *agentRun) filterSessions(c *proc, list, create *ir.Method, flt facts.Filter) (*wanted, error) {
	w := &wanted{values: map[string]json.RawMessage{}}
	for i, tag := range []string{"match", "other"} {
		dir := filepath.Join(r.cwd, tag)
		extra := filepath.Join(r.cwd, tag+"-extra")
		for _, d := range []string{dir, extra} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				return nil, err
			}
		}
		var obj map[string]json.RawMessage
		_ = json.Unmarshal(r.sessionParams(), &obj)
		vals := map[string]json.RawMessage{}
		for _, fm := range flt.Members {
			f := create.Params.Member(fm.Name)
			if f == nil {
				continue
			}
			if _, gated := r.withheld(create, "/"+f.JSON); gated {
				continue
			}
			var v any = dir
			if fm.Match == "ordered" {
				v = []string{extra}
				if i == 1 {
					v = []string{}
				}
			}
			vals[fm.Name], _ = json.Marshal(v)
			obj[fm.Name] = vals[fm.Name]
		}
		params, _ := json.Marshal(obj)
		resp, err := c.request(create.Wire, params)
		if err != nil || resp.Error != nil {
			return nil, fmt.Errorf("%s: %s", create.Wire, errOr(err, resp))
		}
		var out struct {
			SessionID string `json:"sessionId"`
		}
		_ = json.Unmarshal(resp.Result, &out)
		if i == 0 {
			w.values, w.session = vals, out.SessionID
		}
	}
	obj := map[string]json.RawMessage{}
	_ = json.Unmarshal(r.p.example(list.Params.Def), &obj)
	for k, v := range w.values {
		if f := list.Params.Member(k); f != nil {
			if _, gated := r.withheld(list, "/"+f.JSON); !gated {
				obj[k] = v
			}
		}
	}
	w.params, _ = json.Marshal(obj)
	return w, nil
}

// judgeList checks every listed item against the filter values and looks for
// the matching session.
func judgeList(result json.RawMessage, flt facts.Filter, w *wanted) (Verdict, string) {
	var out struct {
		Sessions   []map[string]json.RawMessage `json:"sessions"`
		NextCursor *string                      `json:"nextCursor"`
	}
	if json.Unmarshal(result, &out) != nil {
		return Fail, "result is not a session list"
	}
	found := false
	for _, item := range out.Sessions {
		for _, fm := range flt.Members {
			want, ok := w.values[fm.Name]
			if !ok {
				continue
			}
			got := item[fm.Name]
			if fm.Match == "ordered" && len(got) == 0 {
				got = json.RawMessage("[]") // an item without the list has none
			}
			if !sameJSON(got, want) {
				return Fail, fmt.Sprintf("listed %s with %s %s, filter %s", item["sessionId"], fm.Name, got, want)
			}
		}
		var id string
		_ = json.Unmarshal(item["sessionId"], &id)
		found = found || id == w.session
	}
	if !found && out.NextCursor == nil {
		return Fail, plural(len(out.Sessions), "session") + " listed, not " + w.session
	}
	return Pass, plural(len(out.Sessions), "session") + " listed, all matching"
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}

// plural is "1 session", "2 sessions".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
