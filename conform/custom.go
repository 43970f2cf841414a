package conform

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/acpgen/acpgen/generator/ir"
)

// Sources of the custom-value cases: the v2 schema's catch-all variants,
// whose text reserves every value without `_` for future ACP variants (a
// plain statement: SHOULD).
const (
	srcV2UpdateOther = "schema v2: SessionUpdate other (values beginning with `_` are for extensions, others reserved for ACP)"
	srcV2StopOther   = "schema v2: IdleStateUpdate other stopReason (values beginning with `_` are for extensions, others reserved for ACP)"
	srcV2AuthOther   = "schema v2: AuthMethod other (values beginning with `_` are for extensions, others reserved for ACP)"
)

// openUnion is a tagged union of the profile whose catch-all variant says
// custom values begin with `_`: its tag member and the tags it defines.
type openUnion struct {
	def   string
	tag   string
	known map[string]bool
}

// reservesUnprefixed is the catch-all text that makes a union's custom
// values need the `_` prefix.
const reservesUnprefixed = "beginning with `_`"

// openUnionOf returns def's union when its catch-all reserves the values
// without `_` (v2's open unions; v1's are closed, so the schema check
// already fails an unknown value), else nil.
func openUnionOf(p *Profile, def string) *openUnion {
	t := p.Model.TypeByDef(def)
	if t == nil || t.Union == nil || t.Union.Discriminator == "" {
		return nil
	}
	u := &openUnion{def: def, tag: t.Union.Discriminator, known: map[string]bool{}}
	open := false
	for _, v := range t.Union.Variants {
		switch v.Role {
		case ir.Tagged:
			u.known[v.Tag] = true
		case ir.CatchAll:
			open = open || strings.Contains(v.Description, reservesUnprefixed) || strings.Contains(v.Title, reservesUnprefixed)
		}
	}
	if !open {
		return nil
	}
	return u
}

// customValues records, for the three open unions an agent fills with its
// own values (session update kinds, idle stop reasons, auth method types),
// the values it sent outside the schema's without the `_` prefix.
type customValues struct {
	mu     sync.Mutex
	unions map[string]*openUnion // by kind
	seen   map[string]int
	bad    map[string][]string
}

func newCustomValues(p *Profile) *customValues {
	c := &customValues{unions: map[string]*openUnion{}, seen: map[string]int{}, bad: map[string][]string{}}
	for kind, def := range map[string]string{kindUnprefixedKind: "SessionUpdate", kindUnprefixedStop: "IdleStateUpdate", kindUnprefixedAuth: "AuthMethod"} {
		if u := openUnionOf(p, def); u != nil {
			c.unions[kind] = u
		}
	}
	return c
}

func (c *customValues) note(kind string, v any) {
	u := c.unions[kind]
	s, ok := v.(string)
	if u == nil || !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen[kind]++
	if !u.known[s] && !strings.HasPrefix(s, "_") && len(c.bad[kind]) < 4 && !contains(c.bad[kind], s) {
		c.bad[kind] = append(c.bad[kind], s)
	}
}

// update notes a session/update's kind and, on an idle state_update, its
// stop reason.
func (c *customValues) update(params json.RawMessage) {
	var p struct {
		Update map[string]any `json:"update"`
	}
	if json.Unmarshal(params, &p) != nil || p.Update == nil {
		return
	}
	c.note(kindUnprefixedKind, p.Update["sessionUpdate"])
	if p.Update["sessionUpdate"] == "state_update" && p.Update["state"] == "idle" && p.Update["stopReason"] != nil {
		c.note(kindUnprefixedStop, p.Update["stopReason"])
	}
}

// initialized notes the types of the auth methods an initialize result
// lists.
func (c *customValues) initialized(result json.RawMessage) {
	var r struct {
		AuthMethods []map[string]any `json:"authMethods"`
	}
	_ = json.Unmarshal(result, &r)
	for _, m := range r.AuthMethods {
		if t, ok := m["type"]; ok {
			c.note(kindUnprefixedAuth, t)
		}
	}
}

// results are one case per open union the agent sent values of.
func (c *customValues) results() []Result {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Result
	for kind, u := range c.unions {
		if c.seen[kind] == 0 {
			continue
		}
		res := shouldCase(kind, fmt.Sprintf("custom %s %s values begin with _ (%d)", u.def, u.tag, c.seen[kind]), "",
			"every "+u.tag+" the schema does not define begins with _")
		res.Verdict, res.Observed = Pass, "none without _"
		if len(c.bad[kind]) > 0 {
			res.Verdict, res.Observed = Fail, "without _: "+strings.Join(c.bad[kind], ", ")
		}
		out = append(out, res)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Case < out[j].Case })
	return out
}
