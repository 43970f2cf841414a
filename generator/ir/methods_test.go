package ir

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator/load"
)

// --- hand-written ACP-shaped schemas ----------------------------------------

type obj = map[string]any

// methodDef is a method def whose required member (named for the wire name)
// tells it apart in a union that is not a routing one.
func methodDef(wire, side string) obj {
	return obj{"type": "object", "x-method": wire, "x-side": side,
		"properties": obj{wire: obj{"type": "string"}}, "required": []any{wire}}
}

// member wraps a def reference the way upstream's unions do.
func member(name string) obj {
	return obj{"title": name, "allOf": []any{obj{"$ref": "#/$defs/" + name}}}
}

// messageUnion is a request or notification envelope in the 2.x layout:
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
		obj{"title": "Result", "type": "object", "required": []any{"id", "result"},
			"properties": obj{"id": obj{"$ref": "#/$defs/RequestId"}, "result": obj{"anyOf": ms}}},
		obj{"title": "Error", "type": "object", "required": []any{"id", "error"},
			"properties": obj{"id": obj{"$ref": "#/$defs/RequestId"}, "error": obj{"allOf": []any{obj{"$ref": "#/$defs/Error"}}}}},
	}}
}

// baseDefs is a minimal valid schema: one request each way, one
// notification, a protocol-level notification and extension catch-alls.
func baseDefs() obj {
	return obj{
		"RequestId":          obj{"anyOf": []any{obj{"type": "string"}, obj{"type": "integer"}, obj{"type": "null"}}},
		"Error":              obj{"type": "object"},
		"ExtRequest":         obj{"description": "anything"},
		"ExtNotification":    obj{},
		"NewSessionRequest":  methodDef("session/new", "agent"),
		"NewSessionResponse": methodDef("session/new", "agent"),
		"ReadRequest":        methodDef("fs/read", "client"),
		"ReadResponse":       methodDef("fs/read", "client"),
		"UpdateNotification": methodDef("session/update", "client"),
		"CancelRequest":      methodDef("$/cancel_request", "protocol"),
		"ClientRequest":      messageUnion(true, "NewSessionRequest", "ExtRequest"),
		"AgentResponse":      resultUnion("NewSessionResponse", "ExtRequest"),
		"AgentRequest":       messageUnion(true, "ReadRequest", "ExtRequest"),
		"ClientResponse":     resultUnion("ReadResponse", "ExtRequest"),
		"AgentNotification":  messageUnion(false, "UpdateNotification", "ExtNotification"),
		"ClientNotification": messageUnion(false, "ExtNotification"),
	}
}

func acpDoc(t *testing.T, defs obj) []byte {
	t.Helper()
	protocol := messageUnion(false, "CancelRequest", "ExtNotification")
	protocol["title"] = "ProtocolLevel"
	data, err := json.Marshal(obj{
		"$defs": defs,
		"anyOf": []any{
			obj{"title": "Agent", "type": "object", "properties": obj{"jsonrpc": obj{}}, "anyOf": []any{obj{"allOf": []any{obj{"$ref": "#/$defs/AgentRequest"}}}}},
			protocol,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// buildDoc loads and builds a schema; the error is the loader's or the IR's.
func buildDoc(file string, data []byte) (*Model, error) {
	doc, err := load.Load(file, data)
	if err != nil {
		return nil, err
	}
	return Build(doc, "stable")
}

// methodList is "side kind wire params -> result" per method, sorted.
func methodList(m *Model) []string {
	var out []string
	for _, x := range m.Methods {
		kind, res := KindRequest, ""
		if x.Notification {
			kind = KindNotification
		}
		if x.Result != nil {
			res = " -> " + x.Result.Def
		}
		out = append(out, fmt.Sprintf("%s %s %s %s%s", x.Side, kind, x.Wire, x.Params.Def, res))
	}
	slices.Sort(out)
	return out
}

func wantMethods(t *testing.T, m *Model, want ...string) {
	t.Helper()
	got := methodList(m)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("methods\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
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

func TestMethodsSmallSchema(t *testing.T) {
	m, err := buildDoc("small.json", acpDoc(t, baseDefs()))
	if err != nil {
		t.Fatal(err)
	}
	wantMethods(t, m,
		"agent request session/new NewSessionRequest -> NewSessionResponse",
		"client request fs/read ReadRequest -> ReadResponse",
		"client notification session/update UpdateNotification",
		"protocol notification $/cancel_request CancelRequest")
}

// "both" was how older schemas (0.22.0 to 1.5.1) marked a def that either
// side handles: it is a method of the agent and of the client.
func TestMethodsBoth(t *testing.T) {
	defs := baseDefs()
	defs["MessageRequest"] = methodDef("mcp/message", "both")
	defs["MessageResponse"] = methodDef("mcp/message", "both")
	defs["ClientRequest"] = messageUnion(true, "NewSessionRequest", "MessageRequest", "ExtRequest")
	defs["AgentRequest"] = messageUnion(true, "ReadRequest", "MessageRequest", "ExtRequest")
	defs["AgentResponse"] = resultUnion("NewSessionResponse", "MessageResponse", "ExtRequest")
	defs["ClientResponse"] = resultUnion("ReadResponse", "MessageResponse", "ExtRequest")
	m, err := buildDoc("both.json", acpDoc(t, defs))
	if err != nil {
		t.Fatal(err)
	}
	wantMethods(t, m,
		"agent request session/new NewSessionRequest -> NewSessionResponse",
		"client request fs/read ReadRequest -> ReadResponse",
		"client notification session/update UpdateNotification",
		"protocol notification $/cancel_request CancelRequest",
		"agent request mcp/message MessageRequest -> MessageResponse",
		"client request mcp/message MessageRequest -> MessageResponse")
}

// Releases before 1.0 listed union members as bare $refs, and schemas
// without envelopes (npm 0.4.5 to 0.8.0) are bare unions of the defs; a "both"
// def routed by one side's unions is still a method of both sides, and the
// side that handles one wire name both ways names the two by kind.
func TestMethodsBareUnions(t *testing.T) {
	schema := []byte(`{"$defs": {
		"NewSessionRequest": {"type": "object", "x-method": "session/new", "x-side": "agent"},
		"NewSessionResponse": {"type": "object", "x-method": "session/new", "x-side": "agent"},
		"MessageRequest": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "x-method": "mcp/message", "x-side": "both"},
		"MessageResponse": {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"], "x-method": "mcp/message", "x-side": "both"},
		"MessageNotification": {"type": "object", "x-method": "mcp/message", "x-side": "both"},
		"ClientRequest": {"anyOf": [{"$ref": "#/$defs/NewSessionRequest", "title": "NewSessionRequest"}, {"$ref": "#/$defs/MessageRequest"}]},
		"AgentResponse": {"anyOf": [{"$ref": "#/$defs/NewSessionResponse"}, {"$ref": "#/$defs/MessageResponse"}]},
		"ClientNotification": {"anyOf": [{"$ref": "#/$defs/MessageNotification"}, {"title": "ExtNotification"}]}
	}}`)
	m, err := buildDoc("bare.json", schema)
	if err != nil {
		t.Fatal(err)
	}
	wantMethods(t, m,
		"agent request session/new NewSessionRequest -> NewSessionResponse",
		"agent request mcp/message MessageRequest -> MessageResponse",
		"client request mcp/message MessageRequest -> MessageResponse",
		"agent notification mcp/message MessageNotification",
		"client notification mcp/message MessageNotification")
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

func TestMethodErrors(t *testing.T) {
	cases := map[string]struct {
		edit    func(obj)
		mention []string
	}{
		"x-method without x-side": {
			func(d obj) { delete(d["UpdateNotification"].(obj), "x-side") },
			[]string{"bad.json#/$defs/UpdateNotification:", `x-method "session/update" without x-side`},
		},
		"x-side without x-method": {
			func(d obj) { delete(d["UpdateNotification"].(obj), "x-method") },
			[]string{"bad.json#/$defs/UpdateNotification:", `x-side "client" without x-method`},
		},
		"empty x-method": {
			func(d obj) { d["UpdateNotification"].(obj)["x-method"] = "" },
			[]string{"bad.json#/$defs/UpdateNotification/x-method:", "non-empty"},
		},
		"unknown side": {
			func(d obj) { d["UpdateNotification"].(obj)["x-side"] = "server" },
			[]string{"bad.json#/$defs/UpdateNotification/x-side:", `"server"`},
		},
		"request without response": {
			func(d obj) { d["ClientResponse"] = resultUnion("ExtRequest"); delete(d, "ReadResponse") },
			[]string{"bad.json#/$defs/ReadRequest:", `request "fs/read" handled by client has no response def`, "ClientResponse"},
		},
		"response without request": {
			func(d obj) { d["AgentRequest"] = messageUnion(true, "ExtRequest"); delete(d, "ReadRequest") },
			[]string{"bad.json#/$defs/ReadResponse:", "answers no request"},
		},
		"request defined twice": {
			func(d obj) {
				d["OtherNewSession"] = methodDef("session/new", "agent")
				d["ClientRequest"] = messageUnion(true, "NewSessionRequest", "OtherNewSession")
			},
			[]string{"bad.json#/$defs/OtherNewSession:", `method "session/new" is defined twice as a request handled by agent`, "/$defs/NewSessionRequest"},
		},
		"response defined twice": {
			func(d obj) {
				d["OtherNewSession"] = methodDef("session/new", "agent")
				d["AgentResponse"] = resultUnion("NewSessionResponse", "OtherNewSession")
			},
			[]string{"bad.json#/$defs/OtherNewSession:", `response "session/new" of side agent is defined twice`, "/$defs/NewSessionResponse"},
		},
		"union member without x-method": {
			func(d obj) {
				d["Plain"] = obj{"type": "object", "properties": obj{"plain": obj{"type": "string"}}, "required": []any{"plain"}}
				d["AgentNotification"] = messageUnion(false, "UpdateNotification", "Plain")
			},
			[]string{"bad.json#/$defs/AgentNotification/properties/params/anyOf/0/anyOf/1/allOf/0/$ref:", "references Plain, which has no x-method"},
		},
		"side disagrees with union": {
			func(d obj) { d["UpdateNotification"].(obj)["x-side"] = "agent" },
			[]string{"bad.json#/$defs/AgentNotification/properties/params/anyOf/0/anyOf/0/allOf/0/$ref:", `x-side "agent" but AgentNotification routes it to side "client"`},
		},
		"one def of two kinds": {
			func(d obj) { d["ClientNotification"] = messageUnion(false, "NewSessionRequest", "ExtNotification") },
			[]string{"bad.json#/$defs/", "NewSessionRequest is a", "in another routing union"},
		},
		"unrouted method": {
			func(d obj) { d["Orphan"] = methodDef("orphan/call", "agent") },
			[]string{"bad.json#/$defs/Orphan:", "referenced by no routing union"},
		},
		"dangling ref": {
			func(d obj) { d["AgentNotification"] = messageUnion(false, "UpdateNotification", "Missing") },
			[]string{"bad.json#/$defs/AgentNotification", "#/$defs/Missing", "dangling reference"},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			defs := baseDefs()
			c.edit(defs)
			_, err := buildDoc("bad.json", acpDoc(t, defs))
			wantErr(t, err, c.mention...)
		})
	}
}

// An inline routing union the IR has no handling side for is an error.
func TestUnknownInlineRouting(t *testing.T) {
	var doc obj
	if err := json.Unmarshal(acpDoc(t, baseDefs()), &doc); err != nil {
		t.Fatal(err)
	}
	doc["anyOf"].([]any)[1].(obj)["title"] = "Sideways"
	data, _ := json.Marshal(doc)
	_, err := buildDoc("bad.json", data)
	wantErr(t, err, "bad.json#/anyOf/1:", `inline routing union titled "Sideways" is not known`)
}

// All method problems are reported in one run, not just the first.
func TestMethodsReportEveryProblem(t *testing.T) {
	defs := baseDefs()
	delete(defs["UpdateNotification"].(obj), "x-side")
	defs["Orphan"] = methodDef("orphan/call", "agent")
	_, err := buildDoc("bad.json", acpDoc(t, defs))
	wantErr(t, err, "bad.json: 2 schema problem(s)", "#/$defs/UpdateNotification:", "#/$defs/Orphan:")
}

// The pinned schemas' method tables, counted by side and kind, with the
// methods whose binding is least regular.
func TestMethodsPinned(t *testing.T) {
	counts := func(m *Model) map[string]int {
		out := map[string]int{}
		for _, x := range m.Methods {
			k := KindRequest
			if x.Notification {
				k = KindNotification
			}
			out[x.Side+" "+k]++
		}
		return out
	}
	for _, c := range []struct {
		file   string
		counts map[string]int
		has    []string
	}{
		{"schema.json", map[string]int{"agent request": 12, "agent notification": 1, "client request": 9, "client notification": 2, "protocol notification": 1},
			[]string{"agent request session/new NewSessionRequest -> NewSessionResponse", "client notification session/update SessionNotification",
				"agent notification session/cancel CancelNotification", "protocol notification $/cancel_request CancelRequestNotification"}},
		{"schema.unstable.json", map[string]int{"agent request": 21, "agent notification": 2, "client request": 10, "client notification": 3,
			"protocol notification": 1, "proxy request": 2, "proxy notification": 1},
			[]string{"client request mcp/message MessageMcpRequest -> MessageMcpResponse", "agent notification mcp/message MessageMcpNotification",
				"proxy request proxy/successor ProxySuccessorRequest -> ProxySuccessorResponse", "proxy notification proxy/successor ProxySuccessorNotification"}},
	} {
		t.Run(c.file, func(t *testing.T) {
			m := loadModel(t, c.file, "x")
			if got := counts(m); fmt.Sprint(got) != fmt.Sprint(c.counts) {
				t.Errorf("counts %v, want %v", got, c.counts)
			}
			list := methodList(m)
			for _, h := range c.has {
				if !slices.Contains(list, h) {
					t.Errorf("no method %q", h)
				}
			}
		})
	}
}

// Two wire names with one Go constant (MethodConst) are an error naming
// both and the def, not two constants of one name in the generated code.
func TestMethodConstClash(t *testing.T) {
	defs := baseDefs()
	defs["ReadRequest"] = methodDef("session_new", "client")
	defs["ReadResponse"] = methodDef("session_new", "client")
	_, err := buildDoc("clash.json", acpDoc(t, defs))
	wantErr(t, err, "clash.json#/$defs/", `"session/new" and "session_new" both have the Go constant MethodSessionNew`)
}
