package meta

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
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

func TestDeriveStable(t *testing.T) {
	tb, err := Derive(readSchema(t, "schema.json"), "schema.json")
	if err != nil {
		t.Fatal(err)
	}
	wantMethod(t, tb, Method{Wire: "session/new", Side: "agent", Kind: Request, Params: "NewSessionRequest", Result: "NewSessionResponse"})
	wantMethod(t, tb, Method{Wire: "session/update", Side: "client", Kind: Notification, Params: "SessionNotification"})
	wantMethod(t, tb, Method{Wire: "session/cancel", Side: "agent", Kind: Notification, Params: "CancelNotification"})
	wantMethod(t, tb, Method{Wire: "$/cancel_request", Side: "protocol", Kind: Notification, Params: "CancelRequestNotification"})
	wantCounts := map[string]int{"agent request": 12, "agent notification": 1, "client request": 9, "client notification": 2, "protocol notification": 1}
	if got := counts(tb); !mapsEqual(got, wantCounts) {
		t.Errorf("counts = %v, want %v", got, wantCounts)
	}
	if find(tb, "client", "mcp/message", Request) != nil {
		t.Error("mcp/message is unstable only")
	}
	if !slices.IsSortedFunc(tb.Methods, func(a, b Method) int {
		return cmpStrings(a.Side, b.Side, a.Wire, b.Wire, a.Kind, b.Kind)
	}) {
		t.Error("methods are not sorted by side, wire, kind")
	}
}

func TestDeriveUnstable(t *testing.T) {
	tb, err := Derive(readSchema(t, "schema.unstable.json"), "schema.unstable.json")
	if err != nil {
		t.Fatal(err)
	}
	wantMethod(t, tb, Method{Wire: "session/new", Side: "agent", Kind: Request, Params: "NewSessionRequest", Result: "NewSessionResponse"})
	// One wire name, two kinds, two handling sides.
	wantMethod(t, tb, Method{Wire: "mcp/message", Side: "client", Kind: Request, Params: "MessageMcpRequest", Result: "MessageMcpResponse"})
	wantMethod(t, tb, Method{Wire: "mcp/message", Side: "agent", Kind: Notification, Params: "MessageMcpNotification"})
	wantMethod(t, tb, Method{Wire: "proxy/successor", Side: "proxy", Kind: Request, Params: "ProxySuccessorRequest", Result: "ProxySuccessorResponse"})
	wantMethod(t, tb, Method{Wire: "proxy/successor", Side: "proxy", Kind: Notification, Params: "ProxySuccessorNotification"})
	wantCounts := map[string]int{
		"agent request": 21, "agent notification": 2, "client request": 10, "client notification": 3,
		"protocol notification": 1, "proxy request": 2, "proxy notification": 1,
	}
	if got := counts(tb); !mapsEqual(got, wantCounts) {
		t.Errorf("counts = %v, want %v", got, wantCounts)
	}
	sides := tb.sides()
	if !sides["agent"]["mcp/message"] || !sides["client"]["mcp/message"] {
		t.Error("mcp/message must be listed under both agent and client")
	}
}

// TestCommittedMeta keeps schema/meta*.json byte-identical to what the
// pulled schemas derive; run with -update to rewrite them.
func TestCommittedMeta(t *testing.T) {
	for _, d := range derived {
		t.Run(d.meta, func(t *testing.T) {
			tb, err := Derive(readSchema(t, d.schema), d.schema)
			if err != nil {
				t.Fatal(err)
			}
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

// --- hand-written schemas ---------------------------------------------------

type obj = map[string]any

func method(wire, side string) obj {
	return obj{"type": "object", "x-method": wire, "x-side": side}
}

// member wraps a def reference the way upstream's unions do.
func member(name string) obj {
	return obj{"title": name, "allOf": []any{obj{"$ref": "#/$defs/" + name}}}
}

// messageUnion is a request or notification union in the 2.x layout:
// params is anyOf:[{anyOf:[members...]},{type:null}].
func messageUnion(withID bool, names ...string) obj {
	var ms []any
	for _, n := range names {
		ms = append(ms, member(n))
	}
	props := obj{
		"method": obj{"type": "string"},
		"params": obj{"anyOf": []any{obj{"anyOf": ms}, obj{"type": "null"}}},
	}
	if withID {
		props["id"] = obj{"allOf": []any{obj{"$ref": "#/$defs/RequestId"}}}
	}
	return obj{"type": "object", "properties": props}
}

func resultUnion(names ...string) obj {
	var ms []any
	for _, n := range names {
		ms = append(ms, member(n))
	}
	return obj{"anyOf": []any{
		obj{"title": "Result", "properties": obj{"id": obj{"$ref": "#/$defs/RequestId"}, "result": obj{"anyOf": ms}}},
		obj{"title": "Error", "properties": obj{"error": obj{"allOf": []any{obj{"$ref": "#/$defs/Error"}}}}},
	}}
}

// baseDefs is a minimal valid schema: one request each way, one
// notification, a protocol-level notification and extension catch-alls.
func baseDefs() obj {
	return obj{
		"RequestId":          obj{"type": []any{"string", "integer", "null"}},
		"Error":              obj{"type": "object"},
		"ExtRequest":         obj{"description": "anything"},
		"ExtNotification":    obj{},
		"NewSessionRequest":  method("session/new", "agent"),
		"NewSessionResponse": method("session/new", "agent"),
		"ReadRequest":        method("fs/read", "client"),
		"ReadResponse":       method("fs/read", "client"),
		"UpdateNotification": method("session/update", "client"),
		"CancelRequest":      method("$/cancel_request", "protocol"),
		"ClientRequest":      messageUnion(true, "NewSessionRequest", "ExtRequest"),
		"AgentResponse":      resultUnion("NewSessionResponse"),
		"AgentRequest":       messageUnion(true, "ReadRequest", "ExtRequest"),
		"ClientResponse":     resultUnion("ReadResponse"),
		"AgentNotification":  messageUnion(false, "UpdateNotification", "ExtNotification"),
		"ClientNotification": messageUnion(false, "ExtNotification"),
	}
}

func doc(t *testing.T, defs obj) []byte {
	t.Helper()
	protocol := messageUnion(false, "CancelRequest")
	protocol["title"] = "ProtocolLevel"
	data, err := json.Marshal(obj{
		"$defs": defs,
		"anyOf": []any{
			obj{"title": "Agent", "properties": obj{"jsonrpc": obj{}}, "anyOf": []any{obj{"allOf": []any{obj{"$ref": "#/$defs/AgentRequest"}}}}},
			protocol,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return data
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

func TestDeriveSmallSchema(t *testing.T) {
	tb, err := Derive(doc(t, baseDefs()), "small.json")
	if err != nil {
		t.Fatal(err)
	}
	want := []Method{
		{Wire: "session/new", Side: "agent", Kind: Request, Params: "NewSessionRequest", Result: "NewSessionResponse"},
		{Wire: "fs/read", Side: "client", Kind: Request, Params: "ReadRequest", Result: "ReadResponse"},
		{Wire: "session/update", Side: "client", Kind: Notification, Params: "UpdateNotification"},
		{Wire: "$/cancel_request", Side: "protocol", Kind: Notification, Params: "CancelRequest"},
	}
	if !slices.Equal(tb.Methods, want) || tb.Version != ProtocolVersion {
		t.Errorf("Derive = %+v\nwant %+v", tb.Methods, want)
	}
}

// "both" was how older schemas (0.22.0 to 1.5.1) marked a def that either
// side handles: it is a method of the agent and of the client.
func TestDeriveBoth(t *testing.T) {
	defs := baseDefs()
	defs["MessageRequest"] = method("mcp/message", "both")
	defs["MessageResponse"] = method("mcp/message", "both")
	defs["ClientRequest"] = messageUnion(true, "NewSessionRequest", "MessageRequest")
	defs["AgentRequest"] = messageUnion(true, "ReadRequest", "MessageRequest")
	defs["AgentResponse"] = resultUnion("NewSessionResponse", "MessageResponse")
	defs["ClientResponse"] = resultUnion("ReadResponse", "MessageResponse")
	tb, err := Derive(doc(t, defs), "both.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, side := range []string{"agent", "client"} {
		wantMethod(t, tb, Method{Wire: "mcp/message", Side: side, Kind: Request, Params: "MessageRequest", Result: "MessageResponse"})
	}
}

// Releases before 1.0 listed union members as bare $refs.
func TestDeriveFlatUnions(t *testing.T) {
	defs := baseDefs()
	flat := func(names ...string) obj {
		var ms []any
		for _, n := range names {
			ms = append(ms, obj{"$ref": "#/$defs/" + n, "title": n})
		}
		return obj{"anyOf": append(ms, obj{"title": "ExtNotification"})}
	}
	defs["ClientRequest"] = flat("NewSessionRequest")
	defs["AgentResponse"] = flat("NewSessionResponse")
	tb, err := Derive(doc(t, defs), "flat.json")
	if err != nil {
		t.Fatal(err)
	}
	wantMethod(t, tb, Method{Wire: "session/new", Side: "agent", Kind: Request, Params: "NewSessionRequest", Result: "NewSessionResponse"})
}

func TestDeriveErrors(t *testing.T) {
	cases := map[string]struct {
		edit    func(obj)
		mention []string
	}{
		"x-method without x-side": {
			func(d obj) { delete(d["UpdateNotification"].(obj), "x-side") },
			[]string{"bad.json#/$defs/UpdateNotification", `x-method "session/update" but no x-side`},
		},
		"request without response": {
			func(d obj) { d["ClientResponse"] = resultUnion(); delete(d, "ReadResponse") },
			[]string{"bad.json#/$defs/AgentRequest/properties/params/anyOf/0/anyOf/0/allOf/0/$ref", "ReadRequest", "has no response", "ClientResponse"},
		},
		"response without request": {
			func(d obj) { d["AgentRequest"] = messageUnion(true, "ExtRequest"); delete(d, "ReadRequest") },
			[]string{"bad.json#/$defs/ClientResponse", "ReadResponse", "answers no request"},
		},
		"defined twice": {
			func(d obj) {
				d["OtherNewSession"] = method("session/new", "agent")
				d["ClientRequest"] = messageUnion(true, "NewSessionRequest", "OtherNewSession")
			},
			[]string{"bad.json#/$defs/ClientRequest/properties/params/anyOf/0/anyOf/1/allOf/0/$ref", `request "session/new" for side agent is defined twice`, "NewSessionRequest", "OtherNewSession"},
		},
		"union member without x-method": {
			func(d obj) {
				d["Plain"] = obj{"type": "object", "properties": obj{}}
				d["AgentNotification"] = messageUnion(false, "UpdateNotification", "Plain")
			},
			[]string{"bad.json#/$defs/AgentNotification/properties/params/anyOf/0/anyOf/1/allOf/0/$ref", "references Plain, which has no x-method"},
		},
		"side disagrees with union": {
			func(d obj) { d["UpdateNotification"].(obj)["x-side"] = "agent" },
			[]string{"bad.json#/$defs/AgentNotification", `x-side "agent" but AgentNotification routes it to side "client"`},
		},
		"unrouted method": {
			func(d obj) { d["Orphan"] = method("orphan/call", "agent") },
			[]string{"bad.json#/$defs/Orphan", "no routing union references it"},
		},
		"unknown side": {
			func(d obj) { d["UpdateNotification"].(obj)["x-side"] = "server" },
			[]string{"bad.json#/$defs/UpdateNotification/x-side", "server"},
		},
		"dangling ref": {
			func(d obj) { d["AgentNotification"] = messageUnion(false, "UpdateNotification", "Missing") },
			[]string{"bad.json#/$defs/AgentNotification", "#/$defs/Missing", "does not resolve"},
		},
		"meta key clash": {
			func(d obj) {
				d["CamelRequest"] = method("fs/readText", "client")
				d["CamelResponse"] = method("fs/readText", "client")
				d["SnakeRequest"] = method("fs/read_text", "client")
				d["SnakeResponse"] = method("fs/read_text", "client")
				d["AgentRequest"] = messageUnion(true, "ReadRequest", "CamelRequest", "SnakeRequest")
				d["ClientResponse"] = resultUnion("ReadResponse", "CamelResponse", "SnakeResponse")
			},
			[]string{`share the meta key "fs_read_text"`},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			defs := baseDefs()
			c.edit(defs)
			_, err := Derive(doc(t, defs), "bad.json")
			wantErr(t, err, c.mention...)
		})
	}

	_, err := Derive([]byte(`{"$defs":{"Foo":{}}}`), "empty.json")
	wantErr(t, err, "empty.json", "routing unions")
	_, err = Derive([]byte(`nope`), "junk.json")
	wantErr(t, err, "junk.json", "not a JSON object")
}

// All problems are reported in one run, not just the first.
func TestDeriveReportsEveryProblem(t *testing.T) {
	defs := baseDefs()
	delete(defs["UpdateNotification"].(obj), "x-side")
	defs["Orphan"] = method("orphan/call", "agent")
	_, err := Derive(doc(t, defs), "bad.json")
	wantErr(t, err, "2 schema problem(s)", "UpdateNotification", "Orphan")
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

// The meta table and the IR read x-side from one place (ir.HandlingSides),
// so they agree even where the routing unions do not list a "both" def for
// each side: here only the client's unions route mcp/message, yet it is a
// method of both sides in each reading. A schema without envelopes (as npm
// 0.4.5 to 0.8.0 wrote them) is classified by the named unions in both.
func TestDeriveAgreesWithIR(t *testing.T) {
	schema := []byte(`{"$defs": {
		"NewSessionRequest": {"type": "object", "x-method": "session/new", "x-side": "agent"},
		"NewSessionResponse": {"type": "object", "x-method": "session/new", "x-side": "agent"},
		"MessageRequest": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "x-method": "mcp/message", "x-side": "both"},
		"MessageResponse": {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"], "x-method": "mcp/message", "x-side": "both"},
		"MessageNotification": {"type": "object", "x-method": "mcp/message", "x-side": "both"},
		"ClientRequest": {"anyOf": [{"$ref": "#/$defs/NewSessionRequest"}, {"$ref": "#/$defs/MessageRequest"}]},
		"AgentResponse": {"anyOf": [{"$ref": "#/$defs/NewSessionResponse"}, {"$ref": "#/$defs/MessageResponse"}]},
		"ClientNotification": {"anyOf": [{"$ref": "#/$defs/MessageNotification"}, {"title": "ExtNotification"}]}
	}}`)
	tb, err := Derive(schema, "both.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := load.Load("both.json", schema)
	if err != nil {
		t.Fatal(err)
	}
	m, err := ir.Build(doc, "unstable")
	if err != nil {
		t.Fatal(err)
	}
	var fromMeta, fromIR []string
	for _, x := range tb.Methods {
		fromMeta = append(fromMeta, fmt.Sprintf("%s %s %s", x.Side, x.Kind, x.Wire))
	}
	for _, x := range m.Methods {
		kind := Request
		if x.Notification {
			kind = Notification
		}
		fromIR = append(fromIR, fmt.Sprintf("%s %s %s", x.Side, kind, x.Wire))
	}
	slices.Sort(fromMeta)
	slices.Sort(fromIR)
	want := []string{"agent notification mcp/message", "agent request mcp/message", "agent request session/new", "client notification mcp/message", "client request mcp/message"}
	if !slices.Equal(fromMeta, want) || !slices.Equal(fromIR, want) {
		t.Errorf("meta %v\nIR   %v\nwant %v", fromMeta, fromIR, want)
	}
	// The side that handles mcp/message both ways names the two by kind.
	names := map[string]bool{}
	for _, x := range m.Methods {
		names[x.Side+" "+x.Name] = true
	}
	for _, n := range []string{"agent MCPMessageRequest", "agent MCPMessageNotification", "client MCPMessageRequest", "client MCPMessageNotification", "agent SessionNew"} {
		if !names[n] {
			t.Errorf("no method %s among %v", n, names)
		}
	}
}
