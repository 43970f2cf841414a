package overlay_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator"
	"github.com/acpgen/acpgen/generator/facts"
	"github.com/acpgen/acpgen/generator/ir"
	"github.com/acpgen/acpgen/generator/overlay"
	"github.com/acpgen/acpgen/generator/source"
	"github.com/acpgen/acpgen/internal/pinned"
	"github.com/xeipuuv/gojsonschema"
)

func repo(parts ...string) string {
	return filepath.Join(append([]string{"..", ".."}, parts...)...)
}

var rfds = []string{repo("overlays", "additional-directories.json"), repo("overlays", "runtime-context.json")}

// states maps "overlay/change" to its state, for compact expectations.
func states(r *overlay.Result) map[string]string {
	out := map[string]string{}
	for _, s := range r.Statuses {
		out[s.Overlay+"/"+s.Change] = s.State
	}
	return out
}

func apply(t *testing.T, base []byte, file string, files ...string) *overlay.Result {
	t.Helper()
	r, err := overlay.ApplyFiles(base, file, files)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// bind binds the result's def gates on its IR, as generator.LoadChannel does.
func bind(t *testing.T, r *overlay.Result) []facts.Gate {
	t.Helper()
	m, err := ir.Build(r.Doc, "")
	if err != nil {
		t.Fatal(err)
	}
	bound, err := m.BindGates(r.DefGates)
	if err != nil {
		t.Fatal(err)
	}
	return append(slices.Clone(r.Gates), bound...)
}

func TestRepoOverlaysAreValid(t *testing.T) {
	files, _ := filepath.Glob(repo("overlays", "*.json"))
	vendor, _ := filepath.Glob(repo("overlays", "vendor", "*.json"))
	files = append(files, vendor...)
	if len(files) < 4 {
		t.Fatalf("found only %v", files)
	}
	for _, f := range files {
		d, err := overlay.ReadFile(f)
		if err != nil {
			t.Error(err)
			continue
		}
		if want := strings.TrimSuffix(filepath.Base(f), ".json"); d.ID != want {
			t.Errorf("%s: id %q, want the file name %q", f, d.ID, want)
		}
	}
}

// TestAbsolutePath checks the path rule with Go's regexp (the generated
// validators) and gojsonschema (an independent validator of the merged schema).
func TestAbsolutePath(t *testing.T) {
	re := regexp.MustCompile(overlay.AbsolutePath)
	schema, _ := json.Marshal(map[string]any{"type": "string", "minLength": 1, "pattern": overlay.AbsolutePath})
	s, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(schema))
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{
		"/": true, "/workspace/app": true, "//server/share": true,
		`C:\src`: true, "c:/src": true, `Z:\`: true, `\\server\share`: true, `\\server\share\dir`: true, `\\?\C:\long\path`: true,
		"": false, "relative": false, "./x": false, "../x": false, "~/x": false, `C:`: false, `C:relative`: false,
		`\rooted-on-current-drive`: false, `\\server`: false, `\\server\`: false, "file:///x": false, " /lead-space": false,
	} {
		if got := re.MatchString(p); got != want {
			t.Errorf("%q: regexp says %v, want %v", p, got, want)
		}
		in, _ := json.Marshal(p)
		res, err := s.Validate(gojsonschema.NewBytesLoader(in))
		if err != nil {
			t.Fatal(err)
		}
		if res.Valid() != want {
			t.Errorf("%q: gojsonschema says %v, want %v", p, res.Valid(), want)
		}
	}
}

// Against the pinned 2.4.0 schema, upstream already has most of
// additionalDirectories: the overlay adds the session/list filter and
// tightens the rest; runtimeContext is new.
func TestPinnedBase(t *testing.T) {
	for _, name := range []string{source.StableFile, source.UnstableFile} {
		t.Run(name, func(t *testing.T) {
			file := pinned.Path(t, name)
			base := pinned.File(t, name)
			r := apply(t, base, file, rfds...)
			got := states(r)
			fork := "tightened"
			if name == source.StableFile {
				fork = "skipped" // stable has no session/fork
			}
			want := map[string]string{
				"additional-directories/def SessionAdditionalDirectoriesCapabilities":                                   "upstream",
				"additional-directories/capability sessionCapabilities.additionalDirectories":                           "upstream",
				"additional-directories/additionalDirectories on the session lifecycle requests (NewSessionRequest)":    "tightened",
				"additional-directories/additionalDirectories on the session lifecycle requests (LoadSessionRequest)":   "tightened",
				"additional-directories/additionalDirectories on the session lifecycle requests (ResumeSessionRequest)": "tightened",
				"additional-directories/additionalDirectories on the session lifecycle requests (ForkSessionRequest)":   fork,
				"additional-directories/session/list filter additionalDirectories":                                      "added",
				"additional-directories/SessionInfo.additionalDirectories":                                              "tightened",
				"additional-directories/cwd is an absolute path (NewSessionRequest)":                                    "tightened",
				"additional-directories/cwd is an absolute path (ForkSessionRequest)":                                   fork,
				"additional-directories/cwd is an absolute path (SessionInfo)":                                          "tightened",
				"additional-directories/session/list filter cwd is an absolute path":                                    "tightened",
				"runtime-context/def SessionRuntimeContextCapabilities":                                                 "added",
				"runtime-context/capability sessionCapabilities.runtimeContext":                                         "added",
				"runtime-context/def RuntimeContextItem":                                                                "added",
				"runtime-context/runtimeContext on session/prompt":                                                      "added",
			}
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%s: %q, want %q", k, got[k], w)
				}
			}
			for _, s := range r.Statuses {
				if s.Change == "SessionInfo.additionalDirectories" {
					for _, d := range []string{"drops x-deserialize-skip-invalid-items", "drops x-deserialize-default-on-error", "adds pattern", "adds minLength"} {
						if !strings.Contains(s.Detail, d) {
							t.Errorf("SessionInfo detail %q lacks %q", s.Detail, d)
						}
					}
				}
			}
			ld, err := generator.LoadChannel(file, rfds, "")
			if err != nil {
				t.Fatal(err)
			}
			gates := map[string]bool{}
			for _, g := range ld.Gates {
				gates[g.Method+" "+g.Path+" "+g.Capability] = true
			}
			for _, m := range []string{"session/new", "session/load", "session/resume", "session/list"} {
				if !gates[m+" /additionalDirectories agentCapabilities.sessionCapabilities.additionalDirectories"] {
					t.Errorf("no gate on %s", m)
				}
			}
			if !gates["session/prompt /runtimeContext agentCapabilities.sessionCapabilities.runtimeContext"] {
				t.Error("no runtimeContext gate")
			}
			required := 0
			for _, g := range ld.Gates {
				if g.Require {
					required++
					if g.Method != "session/list" || !g.Result || g.Path != "/sessions/*/additionalDirectories" {
						t.Errorf("presence gate %+v", g)
					}
				}
			}
			if required != 1 {
				t.Errorf("%d presence gates, want 1", required)
			}
			var presence []facts.DefGate
			for _, d := range r.DefGates {
				if d.Require {
					presence = append(presence, d)
				}
			}
			if len(presence) != 1 || presence[0].Def != "SessionInfo" {
				t.Errorf("presence rules %v", presence)
			}
			checkMerged(t, r.Schema)
		})
	}
}

// checkMerged reads the rules back from the merged schema: they are JSON
// Schema, so any validator sees them.
func checkMerged(t *testing.T, schema []byte) {
	t.Helper()
	var doc struct {
		Defs map[string]struct {
			Properties map[string]map[string]any `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(schema, &doc); err != nil {
		t.Fatal(err)
	}
	dirs := doc.Defs["NewSessionRequest"].Properties["additionalDirectories"]
	items, _ := dirs["items"].(map[string]any)
	if dirs["type"] != "array" || items["pattern"] != overlay.AbsolutePath || items["minLength"] != 1.0 || items["type"] != "string" {
		t.Errorf("additionalDirectories in the merged schema: %v", dirs)
	}
	for k := range dirs {
		if strings.HasPrefix(k, "x-deserialize-") {
			t.Errorf("leniency hint %s survives", k)
		}
	}
	if rc := doc.Defs["PromptRequest"].Properties["runtimeContext"]; rc["x-acpgen-ephemeral"] != true {
		t.Errorf("runtimeContext: %v", rc)
	}
}

// Against npm 0.10.0's schema (that day's v1 unstable schema), nothing of
// additionalDirectories exists: the overlay adds everything.
func TestOlderBase(t *testing.T) {
	// The release comes from acpgen's schema cache (npm on a miss), as the
	// pinned one does: without it the test fails rather than passing unrun.
	cache, err := source.CacheDir("")
	if err != nil {
		t.Fatal(err)
	}
	dir, _, err := source.Fetch(context.Background(), source.FetchOptions{Cache: cache, Stderr: os.Stderr}, nil, "0.10.0")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, source.UnstableFile)
	base, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	r := apply(t, base, file, rfds...)
	for _, s := range r.Statuses {
		want := "added"
		if strings.HasPrefix(s.Change, "cwd is") || strings.HasPrefix(s.Change, "session/list filter cwd") {
			want = "tightened" // cwd exists; the overlay adds the path rule
		}
		if s.State != want {
			t.Errorf("%s/%s: %s, want %s (%s)", s.Overlay, s.Change, s.State, want, s.Detail)
		}
	}
	if len(r.Statuses) != 18 {
		t.Errorf("%d statuses, want 18", len(r.Statuses))
	}
	checkMerged(t, r.Schema)
	// The loader, IR and emitter accept the older base with the overlays.
	files, err := generator.Generate(generator.Config{SchemaDir: dir, Channels: []generator.Channel{{
		Name: "unstable", SchemaFile: source.UnstableFile, OutDir: "old", Package: "old", ImportPath: "example.com/old",
		Overlays: rfds,
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(files["old/extras.go"]), "func (v *ForkSessionRequest) EffectiveRoots()") {
		t.Error("no roots helper on session/fork")
	}
}

// base is a minimal schema for the engine's unit tests.
const base = `{
  "$defs": {
    "SessionId": {"type": "string"},
    "Cap": {"type": "object", "properties": {"_meta": {"type": ["object", "null"], "additionalProperties": true}}},
    "Thing": {
      "description": "upstream prose",
      "type": "object",
      "properties": {
        "cap": {"description": "d", "anyOf": [{"$ref": "#/$defs/Cap"}, {"type": "null"}], "x-deserialize-default-on-error": true},
        "ref": {"description": "d", "allOf": [{"$ref": "#/$defs/SessionId"}]},
        "list": {"type": "array", "items": {"type": "string"}, "x-deserialize-skip-invalid-items": true},
        "name": {"type": ["string", "null"], "pattern": "^a"},
        "_meta": {"type": ["object", "null"], "additionalProperties": true}
      },
      "required": ["ref"],
      "x-method": "thing/do", "x-side": "agent"
    },
    "ThingResponse": {"type": "object", "properties": {}, "x-method": "thing/do", "x-side": "agent"},
    "Ext": {"title": "free"},
    "ClientRequest": {"type": "object", "properties": {"id": {"type": "integer"}, "method": {"type": "string"},
      "params": {"anyOf": [{"anyOf": [{"title": "Thing", "allOf": [{"$ref": "#/$defs/Thing"}]}, {"title": "Ext", "allOf": [{"$ref": "#/$defs/Ext"}]}]}, {"type": "null"}]}}},
    "AgentResponse": {"anyOf": [{"title": "Result", "type": "object", "properties": {"id": {"type": "integer"}, "result": {"anyOf": [{"$ref": "#/$defs/ThingResponse"}, {"$ref": "#/$defs/Ext"}]}}, "required": ["id", "result"]}]}
  }
}`

func overlayFile(t *testing.T, id string, changes ...string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), id+".json")
	doc := `{"acpgenOverlay": 1, "id": "` + id + `", "title": "T ` + id + `", "status": "test", "kind": "rfd", "changes": [` + strings.Join(changes, ",") + `]}`
	if err := os.WriteFile(f, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestEquivalence(t *testing.T) {
	for _, c := range []struct {
		name, change, state, detail string
	}{
		{"null wrapper, hint and description ignored", `{"op": "property", "defs": ["Thing"], "name": "cap", "schema": {"anyOf": [{"$ref": "#/$defs/Cap"}, {"type": "null"}], "x-deserialize-default-on-error": true}}`, "upstream", ""},
		{"dropping the null wrapper and the hint tightens", `{"op": "property", "defs": ["Thing"], "name": "cap", "schema": {"$ref": "#/$defs/Cap"}}`, "tightened", "drops x-deserialize-default-on-error; rejects null"},
		{"an overlay that allows null the base rejects is upstream", `{"op": "property", "defs": ["Thing"], "name": "ref", "schema": {"anyOf": [{"$ref": "#/$defs/SessionId"}, {"type": "null"}]}}`, "upstream", ""},
		{"$ref equals its allOf wrapper", `{"op": "property", "defs": ["Thing"], "name": "ref", "schema": {"$ref": "#/$defs/SessionId"}}`, "upstream", ""},
		{"a pattern and no skipping tighten", `{"op": "property", "defs": ["Thing"], "name": "list", "schema": {"type": "array", "items": {"type": "string", "x-acpgen-path": "absolute"}}}`, "tightened", "/items: adds minLength; /items: adds pattern; drops x-deserialize-skip-invalid-items"},
		{"a type-array null dropped", `{"op": "property", "defs": ["Thing"], "name": "name", "schema": {"type": "string", "pattern": "^a"}}`, "tightened", "rejects null"},
		{"another pattern conflicts", `{"op": "property", "defs": ["Thing"], "name": "name", "schema": {"type": ["string", "null"], "pattern": "^b"}}`, "conflict", `pattern is "^a" in the base, "^b" in the overlay`},
		{"another shape conflicts", `{"op": "property", "defs": ["Thing"], "name": "list", "schema": {"type": "string"}}`, "conflict", `type is "array" in the base, "string" in the overlay`},
		{"another reference conflicts", `{"op": "property", "defs": ["Thing"], "name": "ref", "schema": {"$ref": "#/$defs/Cap"}}`, "conflict", "the base refers to"},
		{"a new member is added", `{"op": "property", "defs": ["Thing"], "name": "extra", "schema": {"type": "boolean"}, "required": true}`, "added", ""},
		{"requiring an upstream member tightens", `{"op": "property", "defs": ["Thing"], "name": "list", "schema": {"type": "array", "items": {"type": "string"}, "x-deserialize-skip-invalid-items": true}, "required": true}`, "tightened", "makes it required"},
		{"an equal def is upstream", `{"op": "def", "def": "Cap", "schema": {"type": "object", "properties": {"_meta": {"type": ["object", "null"], "additionalProperties": true}}}}`, "upstream", ""},
		{"a def with other members conflicts", `{"op": "def", "def": "Cap", "schema": {"type": "object", "properties": {"x": {"type": "string"}}}}`, "conflict", `member "_meta"`},
		{"removing a member", `{"op": "remove", "defs": ["Thing"], "name": "list"}`, "removed", ""},
		{"removing an absent member is upstream", `{"op": "remove", "defs": ["Thing"], "name": "nope"}`, "upstream", "already absent"},
		{"optional target absent", `{"op": "property", "defs": ["Thing", "Fork"], "skipIfAbsent": ["Fork"], "name": "extra", "schema": {"type": "string"}}`, "skipped", "no $defs/Fork"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := overlay.ApplyFiles([]byte(base), "base.json", []string{overlayFile(t, "t", c.change)})
			var ce *overlay.ConflictError
			if err != nil && !errors.As(err, &ce) {
				t.Fatal(err)
			}
			last := r.Statuses[len(r.Statuses)-1]
			if last.State != c.state || !strings.Contains(last.Detail, c.detail) {
				t.Errorf("%s (%s), want %s (%s)", last.State, last.Detail, c.state, c.detail)
			}
			if (c.state == "conflict") != (ce != nil) {
				t.Errorf("conflict error %v", err)
			}
		})
	}
}

func TestTwoOverlays(t *testing.T) {
	a := overlayFile(t, "a", `{"op": "property", "defs": ["Thing"], "name": "extra", "schema": {"type": "string"}}`)
	same := overlayFile(t, "same", `{"op": "property", "defs": ["Thing"], "name": "extra", "schema": {"type": "string", "description": "words do not count"}}`)
	other := overlayFile(t, "other", `{"op": "property", "defs": ["Thing"], "name": "extra", "schema": {"type": "string", "minLength": 3}}`)
	r := apply(t, []byte(base), "base.json", a, same)
	if s := r.Statuses[1]; s.State != "upstream" || !strings.Contains(s.Detail, `overlay "a"`) {
		t.Errorf("same change twice: %+v", s)
	}
	_, err := overlay.ApplyFiles([]byte(base), "base.json", []string{a, other})
	if err == nil || !strings.Contains(err.Error(), `overlay "a" already changed it differently`) {
		t.Errorf("two overlays changing one member differently: %v", err)
	}
	if _, err := overlay.ApplyFiles([]byte(base), "base.json", []string{a, a}); err == nil || !strings.Contains(err.Error(), `overlay id "a"`) {
		t.Errorf("duplicate id: %v", err)
	}
}

func TestMethodRouting(t *testing.T) {
	f := overlayFile(t, "v", `{"op": "method", "method": "_v/ping", "side": "agent", "kind": "request",
		"params": {"def": "PingRequest", "schema": {"type": "object", "properties": {"sessionId": {"$ref": "#/$defs/SessionId"}}}},
		"result": {"def": "PingResponse", "schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}},
		"gate": {"capability": "agentCapabilities.ping"}}`,
		`{"op": "property", "defs": ["ThingResponse"], "name": "n", "schema": {"type": "integer"}, "gate": {"capability": "agentCapabilities.n"}}`)
	r := apply(t, []byte(base), "base.json", f)
	var doc map[string]any
	if err := json.Unmarshal(r.Schema, &doc); err != nil {
		t.Fatal(err)
	}
	defs := doc["$defs"].(map[string]any)
	p := defs["PingRequest"].(map[string]any)
	if p["x-method"] != "_v/ping" || p["x-side"] != "agent" {
		t.Errorf("params def %v", p)
	}
	// The new branch goes before the catch-all extension branch.
	params := defs["ClientRequest"].(map[string]any)["properties"].(map[string]any)["params"].(map[string]any)["anyOf"].([]any)[0].(map[string]any)["anyOf"].([]any)
	var titles []string
	for _, b := range params {
		titles = append(titles, b.(map[string]any)["title"].(string))
	}
	if strings.Join(titles, ",") != "Thing,PingRequest,Ext" {
		t.Errorf("params branches %v", titles)
	}
	if len(r.Gates) != 1 || len(r.DefGates) != 1 || r.DefGates[0].Def != "ThingResponse" {
		t.Errorf("declared: method gates %v, def gates %v", r.Gates, r.DefGates)
	}
	var gates []string
	for _, g := range bind(t, r) {
		gates = append(gates, g.Method+" "+g.Path+" "+g.Capability+" "+map[bool]string{true: "result", false: "params"}[g.Result])
	}
	if strings.Join(gates, "|") != "_v/ping  agentCapabilities.ping params|thing/do /n agentCapabilities.n result" {
		t.Errorf("gates %v", gates)
	}
}

func TestAliases(t *testing.T) {
	f := overlayFile(t, "v", `{"op": "alias", "defs": ["Thing"], "name": "name", "aliases": ["title", "label"]}`)
	r := apply(t, []byte(base), "base.json", f)
	if s := r.Statuses[0]; s.State != "added" || s.Pointer != "/$defs/Thing/properties/name/x-acpgen-aliases" {
		t.Errorf("alias: %+v", s)
	}
	for _, c := range []struct{ name, changes, want string }{
		{"member absent", `{"op": "alias", "defs": ["Thing"], "name": "nope", "aliases": ["x"]}`, `#/changes/0/name: $defs/Thing has no member "nope"`},
		{"property under an alias's name",
			`{"op": "alias", "defs": ["Thing"], "name": "name", "aliases": ["title"]}, {"op": "property", "defs": ["Thing"], "name": "title", "schema": {"type": "string"}}`,
			`#/changes/1/name: member "title" of $defs/Thing is already another name of member "name"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := overlay.ApplyFiles([]byte(base), "base.json", []string{overlayFile(t, "v", c.changes)})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %s", err, c.want)
			}
		})
	}
}
