package meta

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator/ir"
	"github.com/acpgen/acpgen/generator/load"
	"github.com/acpgen/acpgen/internal/pinned"
)

// -update rewrites the derived schema/meta*.json from the pinned schemas.
var update = flag.Bool("update", false, "rewrite schema/meta.json and schema/meta.unstable.json")

var schemaDir = filepath.Join("..", "..", "schema")

// derived pairs each pulled schema with the meta file derived from it.
var derived = []struct{ schema, meta string }{
	{"schema.json", "meta.json"},
	{"schema.unstable.json", "meta.unstable.json"},
}

func readSchema(t *testing.T, name string) []byte {
	t.Helper()
	return pinned.File(t, name)
}

func find(tb *Table, side, wire, kind string) *Method {
	for i, m := range tb.Methods {
		if m.Side == side && m.Wire == wire && m.Kind == kind {
			return &tb.Methods[i]
		}
	}
	return nil
}

func counts(tb *Table) map[string]int {
	out := map[string]int{}
	for _, m := range tb.Methods {
		out[m.Side+" "+m.Kind]++
	}
	return out
}

func wantMethod(t *testing.T, tb *Table, want Method) {
	t.Helper()
	got := find(tb, want.Side, want.Wire, want.Kind)
	if got == nil {
		t.Errorf("no %s %s for side %s", want.Kind, want.Wire, want.Side)
	} else if *got != want {
		t.Errorf("got %+v, want %+v", *got, want)
	}
}

// model builds the IR of a pinned schema, the reading FromModel lays out.
func model(t *testing.T, name string) *ir.Model {
	t.Helper()
	doc, err := load.Load(name, readSchema(t, name))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ir.Build(doc, name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func fromPinned(t *testing.T, name string) *Table {
	t.Helper()
	tb, err := FromModel(model(t, name), 1)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func TestFromModelStable(t *testing.T) {
	tb := fromPinned(t, "schema.json")
	wantMethod(t, tb, Method{Wire: "session/new", Side: "agent", Kind: Request, Params: "NewSessionRequest", Result: "NewSessionResponse"})
	wantMethod(t, tb, Method{Wire: "session/update", Side: "client", Kind: Notification, Params: "SessionNotification"})
	wantMethod(t, tb, Method{Wire: "$/cancel_request", Side: "protocol", Kind: Notification, Params: "CancelRequestNotification"})
	wantCounts := map[string]int{"agent request": 12, "agent notification": 1, "client request": 9, "client notification": 2, "protocol notification": 1}
	if got := counts(tb); !mapsEqual(got, wantCounts) {
		t.Errorf("counts = %v, want %v", got, wantCounts)
	}
	if !slices.IsSortedFunc(tb.Methods, func(a, b Method) int {
		return cmpStrings(a.Side, b.Side, a.Wire, b.Wire, a.Kind, b.Kind)
	}) {
		t.Error("methods are not sorted by side, wire, kind")
	}
}

func TestFromModelUnstable(t *testing.T) {
	tb := fromPinned(t, "schema.unstable.json")
	// One wire name, two kinds, two handling sides.
	wantMethod(t, tb, Method{Wire: "mcp/message", Side: "client", Kind: Request, Params: "MessageMcpRequest", Result: "MessageMcpResponse"})
	wantMethod(t, tb, Method{Wire: "mcp/message", Side: "agent", Kind: Notification, Params: "MessageMcpNotification"})
	sides := tb.sides()
	if !sides["agent"]["mcp/message"] || !sides["client"]["mcp/message"] {
		t.Error("mcp/message must be listed under both agent and client")
	}
}

// Two wire names of one side with one meta key could not both be listed.
func TestFromModelKeyClash(t *testing.T) {
	def := func(name string) *ir.Type {
		return &ir.Type{Name: name, Def: name, File: "bad.json", Pointer: "/$defs/" + name}
	}
	m := &ir.Model{Methods: []*ir.Method{
		{Wire: "fs/readText", Side: "client", Notification: true, Params: def("CamelNotification")},
		{Wire: "fs/read_text", Side: "client", Notification: true, Params: def("SnakeNotification")},
	}}
	_, err := FromModel(m, 1)
	wantErr(t, err, "bad.json#/$defs/SnakeNotification", `"fs/readText" and "fs/read_text" of side client share the meta key "fs_read_text"`)
}

// TestCommittedMeta keeps schema/meta*.json byte-identical to what the
// pulled schemas derive; run with -update to rewrite them.
func TestCommittedMeta(t *testing.T) {
	for _, d := range derived {
		t.Run(d.meta, func(t *testing.T) {
			tb := fromPinned(t, d.schema)
			want := tb.MarshalMeta()
			path := filepath.Join(schemaDir, d.meta)
			if *update {
				if err := os.WriteFile(path, want, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v; run go test ./generator/meta -run TestCommittedMeta -update", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s is stale; run go test ./generator/meta -run TestCommittedMeta -update", path)
			}
			m, err := ParseMeta(got, path)
			if err != nil {
				t.Fatal(err)
			}
			if err := Compare(tb, m, path); err != nil {
				t.Error(err)
			}
			if !json.Valid(got) {
				t.Errorf("%s is not valid JSON", path)
			}
		})
	}
}

func TestKey(t *testing.T) {
	for wire, want := range map[string]string{
		"initialize":         "initialize",
		"session/set_mode":   "session_set_mode",
		"$/cancel_request":   "cancel_request",
		"auth/status_update": "auth_status_update",
		"document/didOpen":   "document_did_open",
		"session/setTitle":   "session_set_title",
		"proxy/successor":    "proxy_successor",
		"a//b-c.d":           "a_b_c_d",
	} {
		if got := Key(wire); got != want {
			t.Errorf("Key(%q) = %q, want %q", wire, got, want)
		}
	}
}

func TestMarshalMeta(t *testing.T) {
	tb := &Table{Version: 1, Methods: []Method{
		{Wire: "initialize", Side: "agent", Kind: Request, Params: "A", Result: "B"},
		{Wire: "mcp/message", Side: "agent", Kind: Notification, Params: "C"},
		{Wire: "mcp/message", Side: "agent", Kind: Request, Params: "D", Result: "E"},
		{Wire: "$/cancel_request", Side: "protocol", Kind: Notification, Params: "F"},
	}}
	want := `{
  "version": 1,
  "agentMethods": {
    "initialize": "initialize",
    "mcp_message": "mcp/message"
  },
  "clientMethods": {},
  "protocolMethods": {
    "cancel_request": "$/cancel_request"
  }
}
`
	if got := string(tb.MarshalMeta()); got != want {
		t.Errorf("MarshalMeta =\n%s\nwant\n%s", got, want)
	}
}

func TestParseMetaAndCompare(t *testing.T) {
	// Upstream's key order and spacing differ from ours; only sets matter.
	meta := []byte(`{"agentMethods":{"session_new":"session/new","mcp_message":"mcp/message"},
		"clientMethods":{"session_update":"session/update","fs_gone":"fs/gone"},
		"protocolMethods":{},"version":1}`)
	m, err := ParseMeta(meta, "up.json")
	if err != nil {
		t.Fatal(err)
	}
	if !m["agent"]["mcp/message"] || !m["client"]["session/update"] || m["protocol"] == nil {
		t.Errorf("ParseMeta = %v", m)
	}
	tb := &Table{Version: 1, Methods: []Method{
		{Wire: "session/new", Side: "agent", Kind: Request},
		{Wire: "session/update", Side: "client", Kind: Notification},
		{Wire: "mcp/message", Side: "client", Kind: Request},
	}}
	err = Compare(tb, m, "up.json")
	wantErr(t, err,
		`up.json#/agentMethods: lists "mcp/message"`,
		`up.json#/clientMethods: "mcp/message" is handled by the client in the schema but is not listed`,
		`up.json#/clientMethods: lists "fs/gone"`,
		"3 difference(s)")

	for text, mention := range map[string]string{
		`[]`:                                 "not a JSON object",
		`{"version":"one"}`:                  "#/version",
		`{"agentMethods":["a"]}`:             "#/agentMethods",
		`{"agentMethods":{"x":""}}`:          "#/agentMethods/x",
		`{"methods":{}}`:                     "#/methods: unknown key",
		`{"version":1,"sideways":{"a":"b"}}`: "#/sideways: unknown key",
	} {
		_, err := ParseMeta([]byte(text), "bad.json")
		wantErr(t, err, "bad.json", mention)
	}
}

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one mentioning %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not mention %q", err, p)
		}
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
