package corpus

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/runtime/jsonpointer"
)

func corpusDir(parts ...string) string {
	return filepath.Join(append([]string{repoRoot(), "testdata", "corpus"}, parts...)...)
}

// TestCorpusValid checks every hand-written message: the payload validates
// against its def, the def belongs to the frame's method, the payload uses
// only members the schema declares (intentional unknowns start with "x_"),
// and the channel's messages cover every session/update kind.
func TestCorpusValid(t *testing.T) {
	for _, ch := range channels {
		t.Run(ch.name, func(t *testing.T) {
			v := loadValidator(t, ch.schema)
			defs := rawDefs(t, v.raw)
			msgs, err := LoadMessages(corpusDir(ch.name))
			if err != nil {
				t.Fatal(err)
			}
			kinds := map[string]bool{}
			for _, m := range msgs {
				name := filepath.Base(m.File)
				def, ok := defs[m.Def]
				if !ok {
					t.Errorf("%s: no def %s", name, m.Def)
					continue
				}
				errs, err := v.check(defPointer(m.Def), m.Payload)
				if err != nil {
					t.Fatal(err)
				}
				if len(errs) > 0 {
					t.Errorf("%s: %s is invalid: %s", name, m.Def, joinErrs(errs))
				}
				checkBinding(t, name, m, def)
				var payload any
				if err := json.Unmarshal(m.Payload, &payload); err != nil {
					t.Fatal(err)
				}
				w := walker{defs: defs}
				w.walk(payload, []any{map[string]any{"$ref": defPointer(m.Def)}}, "", func(ptr string) {
					if !overlayMembers[m.Def][ptr] {
						t.Errorf("%s: member %s is not in the schema (prefix intentional unknowns with x_)", name, ptr)
					}
				})
				if m.Def == "SessionNotification" {
					var n struct {
						Update struct {
							Kind string `json:"sessionUpdate"`
						} `json:"update"`
					}
					if err := json.Unmarshal(m.Payload, &n); err != nil {
						t.Fatal(err)
					}
					kinds[n.Update.Kind] = true
				}
			}
			for _, b := range defs["SessionUpdate"]["oneOf"].([]any) {
				k := b.(map[string]any)["properties"].(map[string]any)["sessionUpdate"].(map[string]any)["const"].(string)
				if !kinds[k] {
					t.Errorf("no session/update message of kind %s", k)
				}
			}
			if len(msgs) < 40 {
				t.Errorf("only %d messages, want at least 40", len(msgs))
			}
			t.Logf("%s: %d messages", ch.name, len(msgs))
		})
	}
}

// overlayMembers are members the RFD overlays add (seeds 000 and 003) that
// the upstream schema lacks: upstream validates them as tolerated unknown
// members, and the overlaid types must round-trip them as known fields.
var overlayMembers = map[string]map[string]bool{
	"InitializeResponse":  {"/agentCapabilities/sessionCapabilities/runtimeContext": true},
	"ListSessionsRequest": {"/additionalDirectories": true},
	"PromptRequest":       {"/runtimeContext": true},
}

// checkBinding ties a message to its def: requests and notifications carry
// the def's x-method, results use a def with x-method, errors use Error.
func checkBinding(t *testing.T, file string, m Message, def map[string]any) {
	t.Helper()
	var frame struct {
		Method string `json:"method"`
	}
	if err := json.Unmarshal(m.Frame, &frame); err != nil {
		t.Fatal(err)
	}
	xm, _ := def["x-method"].(string)
	switch m.Member {
	case "error":
		if m.Def != "Error" {
			t.Errorf("%s: an error payload must use def Error, not %s", file, m.Def)
		}
	case "params":
		if frame.Method != xm {
			t.Errorf("%s: method %q but %s is bound to %q", file, frame.Method, m.Def, xm)
		}
	case "result":
		if xm == "" || !strings.HasSuffix(m.Def, "Response") {
			t.Errorf("%s: result def %s is not a method response", file, m.Def)
		}
	}
}

// walker finds members that no schema reachable at their position declares.
// It takes every branch of every union at once, so it is looser than a
// validator, but it needs no validator to catch invented field names.
type walker struct {
	defs map[string]map[string]any
}

func (w walker) expand(schemas []any) []map[string]any {
	var out []map[string]any
	seen := map[string]bool{}
	queue := append([]any(nil), schemas...)
	for len(queue) > 0 {
		m, _ := queue[0].(map[string]any)
		queue = queue[1:]
		if m == nil {
			continue
		}
		if ref, ok := m["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/$defs/")
			if !seen[name] {
				seen[name] = true
				queue = append(queue, w.defs[name])
			}
		}
		for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
			if l, ok := m[kw].([]any); ok {
				queue = append(queue, l...)
			}
		}
		out = append(out, m)
	}
	return out
}

func (w walker) walk(v any, schemas []any, ptr string, report func(string)) {
	nodes := w.expand(schemas)
	switch v := v.(type) {
	case map[string]any:
		props := map[string][]any{}
		var extra []any
		for _, m := range nodes {
			if ps, ok := m["properties"].(map[string]any); ok {
				for k, s := range ps {
					props[k] = append(props[k], s)
				}
			}
			if ap, ok := m["additionalProperties"].(map[string]any); ok {
				extra = append(extra, ap)
			}
		}
		names := make([]string, 0, len(v))
		for k := range v {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			p := ptr + "/" + jsonpointer.Escape(k)
			switch s, ok := props[k]; {
			case ok:
				w.walk(v[k], s, p, report)
			case len(extra) > 0:
				w.walk(v[k], extra, p, report)
			case strings.HasPrefix(k, "x_"), len(props) == 0:
				// intentional unknown member, or a free object (_meta, rawInput)
			default:
				report(p)
			}
		}
	case []any:
		var items []any
		for _, m := range nodes {
			if it, ok := m["items"]; ok {
				items = append(items, it)
			}
		}
		for i, x := range v {
			w.walk(x, items, ptr+"/"+itoa(i), report)
		}
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// TestCorpusInvalid checks that every invalid case fails validation in both
// channels, for the stated reason.
func TestCorpusInvalid(t *testing.T) {
	cases, err := LoadInvalid(corpusDir("invalid"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range channels {
		v := loadValidator(t, ch.schema)
		for _, c := range cases {
			errs, err := v.check(defPointer(c.Def), c.JSON)
			if err != nil {
				t.Fatal(err)
			}
			name := filepath.Base(c.File)
			if len(errs) == 0 {
				t.Errorf("%s (%s): %s validates, want a failure", name, ch.name, c.JSON)
				continue
			}
			if all := joinErrs(errs); !strings.Contains(all, c.ErrorContains) {
				t.Errorf("%s (%s): errors %q do not mention %q", name, ch.name, all, c.ErrorContains)
			}
		}
	}
	if len(cases) < 10 {
		t.Errorf("only %d invalid cases, want at least 10", len(cases))
	}
	t.Logf("%d invalid cases", len(cases))
}

// The walker must flag an invented member, or the check above proves
// nothing.
func TestWalkerFlagsUndeclared(t *testing.T) {
	defs := rawDefs(t, readSchema(t, "schema.json"))
	var got []string
	w := walker{defs: defs}
	doc := []byte(`{"sessionId":"s","prompt":[{"type":"text","text":"hi","txet":"typo"}],"x_ok":1,"_meta":{"free":{"a":1}}}`)
	var v any
	if err := json.NewDecoder(bytes.NewReader(doc)).Decode(&v); err != nil {
		t.Fatal(err)
	}
	w.walk(v, []any{map[string]any{"$ref": "#/$defs/PromptRequest"}}, "", func(p string) { got = append(got, p) })
	if strings.Join(got, ",") != "/prompt/0/txet" {
		t.Errorf("walker reported %v, want [/prompt/0/txet]", got)
	}
}
