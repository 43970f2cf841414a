package schemadiff

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator/ir"
	"github.com/acpgen/acpgen/generator/load"
)

// envelope routes the defs named in reqs (with their responses) and notes.
// envelope routes requests and notifications to the agent; a notification
// named "client:X" is routed to the client instead.
func envelope(reqs, notes []string) string {
	var p, r, n, cn []string
	for _, x := range reqs {
		p = append(p, fmt.Sprintf(`{"$ref": "#/$defs/%sRequest"}`, x))
		r = append(r, fmt.Sprintf(`{"$ref": "#/$defs/%sResponse"}`, x))
	}
	for _, x := range notes {
		if name, ok := strings.CutPrefix(x, "client:"); ok {
			cn = append(cn, fmt.Sprintf(`{"$ref": "#/$defs/%sNotification"}`, name))
			continue
		}
		n = append(n, fmt.Sprintf(`{"$ref": "#/$defs/%sNotification"}`, x))
	}
	out := fmt.Sprintf(`"ClientRequest": {"x-docs-ignore": true, "properties": {"id": {"type": "integer"}, "method": {"type": "string"}, "params": {"anyOf": [%s]}}},
	"AgentResponse": {"x-docs-ignore": true, "properties": {"id": {"type": "integer"}, "result": {"anyOf": [%s]}}}`,
		strings.Join(p, ","), strings.Join(r, ","))
	for i, list := range [][]string{n, cn} {
		if len(list) > 0 {
			out += fmt.Sprintf(`,
	"%s": {"x-docs-ignore": true, "properties": {"method": {"type": "string"}, "params": {"anyOf": [%s]}}}`,
				[]string{"ClientNotification", "AgentNotification"}[i], strings.Join(list, ","))
		}
	}
	return out
}

func surface(t *testing.T, defs string) *Surface {
	t.Helper()
	doc, err := load.Load("test.json", []byte(`{"$defs": {`+defs+`}}`))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ir.Build(doc, "")
	if err != nil {
		t.Fatal(err)
	}
	return Extract(m)
}

const oldDefs = `
	"NewRequest": {"x-method": "session/new", "x-side": "agent", "type": "object", "description": "Creates a session.",
		"properties": {"cwd": {"type": "string"}, "mode": {"$ref": "#/$defs/Mode"}, "tags": {"type": "array", "items": {"type": "string"}},
			"limit": {"type": "integer", "format": "uint32"}, "note": {"type": ["string", "null"]}, "gone": {"type": "boolean"},
			"loose": {"type": "string", "x-deserialize-default-on-error": true}},
		"required": ["cwd"]},
	"NewResponse": {"x-method": "session/new", "x-side": "agent", "type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
	"OldRequest": {"x-method": "session/old", "x-side": "agent", "type": "object"},
	"OldResponse": {"x-method": "session/old", "x-side": "agent", "type": "object"},
	"CancelNotification": {"x-method": "session/cancel", "x-side": "agent", "type": "object"},
	"Mode": {"oneOf": [{"const": "ask", "type": "string"}, {"const": "code", "type": "string"}, {"const": "plan", "type": "string"}]},
	"Kind": {"anyOf": [{"const": "a", "type": "string"}, {"title": "other", "type": "string"}]},
	"Block": {"oneOf": [
		{"type": "object", "properties": {"type": {"const": "text", "type": "string"}}, "required": ["type"], "allOf": [{"$ref": "#/$defs/Text"}]},
		{"type": "object", "properties": {"type": {"const": "image", "type": "string"}}, "required": ["type"], "allOf": [{"$ref": "#/$defs/Image"}]}]},
	"Open": {"anyOf": [
		{"type": "object", "properties": {"kind": {"const": "x", "type": "string"}}, "required": ["kind"], "allOf": [{"$ref": "#/$defs/Text"}]},
		{"title": "other", "type": "object", "properties": {"kind": {"type": "string"}}, "not": {"anyOf": [{"properties": {"kind": {"const": "x"}}}]}}]},
	"Text": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
	"Image": {"type": "object", "properties": {"data": {"type": "string"}}, "required": ["data"]},
	"AgentCapabilities": {"type": "object", "properties": {"loadSession": {"type": "boolean"}, "legacy": {"type": "boolean"}}},
	"Removed": {"type": "string"},
	"Id": {"type": "string"},
`

const newDefs = `
	"NewRequest": {"x-method": "session/new", "x-side": "agent", "type": "object", "description": "Creates a new session.",
		"properties": {"cwd": {"type": "string"}, "mode": {"$ref": "#/$defs/Mode"}, "tags": {"type": "array", "items": {"type": "string"}},
			"limit": {"type": "integer", "format": "uint64"}, "note": {"type": "string"}, "extra": {"type": "string"}, "must": {"type": "string"},
			"loose": {"type": "string"}},
		"required": ["cwd", "tags", "must"]},
	"NewResponse": {"x-method": "session/new", "x-side": "agent", "type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
	"ForkRequest": {"x-method": "session/fork", "x-side": "agent", "type": "object"},
	"ForkResponse": {"x-method": "session/fork", "x-side": "agent", "type": "object"},
	"CancelNotification": {"x-method": "session/cancel", "x-side": "client", "type": "object"},
	"Mode": {"oneOf": [{"const": "ask", "type": "string"}, {"const": "code", "type": "string"}, {"const": "review", "type": "string"}]},
	"Kind": {"anyOf": [{"const": "a", "type": "string"}, {"const": "b", "type": "string"}, {"title": "other", "type": "string"}]},
	"Block": {"oneOf": [
		{"type": "object", "properties": {"type": {"const": "text", "type": "string"}}, "required": ["type"], "allOf": [{"$ref": "#/$defs/Text"}]},
		{"type": "object", "properties": {"type": {"const": "audio", "type": "string"}}, "required": ["type"], "allOf": [{"$ref": "#/$defs/Image"}]}]},
	"Open": {"anyOf": [
		{"type": "object", "properties": {"kind": {"const": "x", "type": "string"}}, "required": ["kind"], "allOf": [{"$ref": "#/$defs/Text"}]},
		{"type": "object", "properties": {"kind": {"const": "y", "type": "string"}}, "required": ["kind"], "allOf": [{"$ref": "#/$defs/Image"}]},
		{"title": "other", "type": "object", "properties": {"kind": {"type": "string"}}, "not": {"anyOf": [{"properties": {"kind": {"const": "x"}}}]}}]},
	"Text": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
	"Image": {"type": "object", "properties": {"data": {"type": "string"}}, "required": ["data"]},
	"AgentCapabilities": {"type": "object", "properties": {"loadSession": {"type": "boolean"}, "fork": {"type": "boolean"}}},
	"Id": {"type": "integer"},
	"Fresh": {"type": "string"},
`

func TestClassifier(t *testing.T) {
	old := surface(t, oldDefs+envelope([]string{"New", "Old"}, []string{"Cancel"}))
	new := surface(t, newDefs+envelope([]string{"New", "Fork"}, []string{"client:Cancel"}))
	var got []string
	for _, c := range Compare(old, new) {
		got = append(got, fmt.Sprintf("%s %s %s %s", c.Class, c.Op, c.Category, c.Subject))
	}
	want := []string{
		"breaking removed method session/old (request)",
		"breaking changed method session/cancel (notification)", // handled by another side
		"breaking removed capability AgentCapabilities.legacy",
		"breaking changed type Id",      // alias string -> integer
		"breaking removed type Removed", // def removed
		"breaking removed type OldRequest",
		"breaking removed type OldResponse",
		"breaking changed field NewRequest.limit",   // uint32 -> uint64
		"breaking changed field NewRequest.note",    // no longer nullable: *string either way, but null rejected
		"breaking added field NewRequest.must",      // required
		"breaking removed field NewRequest.gone",    //
		"breaking changed field NewRequest.tags",    // optional -> required
		"breaking removed variant Block[image]",     //
		"breaking removed enum value Mode \"plan\"", //
		"breaking changed decoding NewRequest.loose",
		"additive added method session/fork (request)",
		"additive added capability AgentCapabilities.fork",
		"additive added type Fresh",
		"additive added type ForkRequest",
		"additive added type ForkResponse",
		"additive added field NewRequest.extra",
		"additive added variant Block[audio]",
		"additive added variant Open[y]",
		"additive added enum value Kind \"b\"",
		"additive added enum value Mode \"review\"",
		"docs changed type NewRequest",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestNotes(t *testing.T) {
	old := surface(t, oldDefs+envelope([]string{"New", "Old"}, []string{"Cancel"}))
	new := surface(t, newDefs+envelope([]string{"New", "Fork"}, []string{"client:Cancel"}))
	detail := map[string]string{}
	for _, c := range Compare(old, new) {
		detail[c.Subject] = c.Detail
	}
	for subject, want := range map[string]string{
		`Mode "review"`:                 "closed enum: SDKs built from the old schema reject this value",
		`Kind "b"`:                      "open enum",
		"Block[audio]":                  "closed union: SDKs built from the old schema reject it",
		"Open[y]":                       "open union",
		"NewRequest.note":               "null no longer accepted",
		"NewRequest.tags":               "now required",
		"NewRequest.loose":              "stricter decoding: no longer x-deserialize-default-on-error",
		"session/cancel (notification)": "handled by client, was agent",
		"NewRequest.limit":              "type uint64, was uint32",
		"session/fork (request)":        "handled by agent; params ForkRequest, result ForkResponse",
		"AgentCapabilities.legacy":      "optional bool",
		"NewRequest.must":               "required string",
	} {
		if !strings.Contains(detail[subject], want) {
			t.Errorf("%s: detail %q lacks %q", subject, detail[subject], want)
		}
	}
}

func TestIdentical(t *testing.T) {
	a := surface(t, oldDefs+envelope([]string{"New", "Old"}, []string{"Cancel"}))
	b := surface(t, oldDefs+envelope([]string{"New", "Old"}, []string{"Cancel"}))
	if c := Compare(a, b); len(c) != 0 {
		t.Fatalf("identical schemas differ: %+v", c)
	}
}

// TestReportFormats runs Diff over folders: a channel missing on one side is
// noted rather than compared, and both formats carry the verdict.
func TestReportFormats(t *testing.T) {
	oldDir, newDir := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(oldDir, "schema.unstable.json"), []byte(`{"$defs": {`+oldDefs+envelope([]string{"New", "Old"}, []string{"Cancel"})+`}}`), 0o644)
	os.WriteFile(filepath.Join(newDir, "schema.unstable.json"), []byte(`{"$defs": {`+newDefs+envelope([]string{"New", "Fork"}, []string{"client:Cancel"})+`}}`), 0o644)
	os.WriteFile(filepath.Join(newDir, "schema.json"), []byte(`{"$defs": {`+newDefs+envelope([]string{"New", "Fork"}, []string{"client:Cancel"})+`}}`), 0o644)
	r, err := Diff(Side{"v1", oldDir}, Side{"v2", newDir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var text, md bytes.Buffer
	r.Text(&text)
	r.Markdown(&md)
	for _, want := range []string{
		"schema diff v1 -> v2",
		"stable (schema.json): only in v2 (v1 has no schema.json): not compared",
		"unstable (schema.unstable.json): 15 breaking, 10 additive, 1 docs",
		"  breaking removed method     session/old (request): was handled by agent",
		"breaking: a Go SDK generated from the new schema needs a major version",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}
	for _, want := range []string{
		"## ACP schema changes: v1 → v2",
		"#### Breaking (15)",
		"- Removed method `session/old (request)`: was handled by agent",
		"- Added variant `Block[audio]`: payload Image; closed union",
		"#### Docs (1)\n\nDescription text changed: `NewRequest`.",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown report lacks %q:\n%s", want, md.String())
		}
	}
}

// TestGoNames: every change also names the Go identifier acpgen generates
// for its subject, and its detail spells types as Go types.
func TestGoNames(t *testing.T) {
	const common = `
	"SessionId": {"type": "string"},
	"McpServerStdio": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
	"NewSessionRequest": {"x-method": "session/new", "x-side": "agent", "type": "object",
		"properties": {"cwd": {"type": "string"}, "meta": {"type": "object", "properties": {"traceId": {"type": "string"}%s}}%s}},
	"NewSessionResponse": {"x-method": "session/new", "x-side": "agent", "type": "object"},
	"Elicit": {"type": "object", "properties": {"message": {"type": "string"}}, "oneOf": [
		{"type": "object", "properties": {"mode": {"const": "form", "type": "string"}}, "required": ["mode"]}%s]},
	"SessionMode": {"oneOf": [{"const": "ask", "type": "string"}%s]},
	"CancelNotification": {"x-method": "session/cancel", "x-side": "agent", "type": "object"},
`
	old := surface(t, fmt.Sprintf(common, "", "", "", "")+envelope([]string{"NewSession"}, []string{"Cancel"}))
	new := surface(t, fmt.Sprintf(common,
		`, "spanId": {"type": "string"}`,
		`, "mcpServers": {"type": "array", "items": {"$ref": "#/$defs/McpServer"}}, "sessionId": {"$ref": "#/$defs/SessionId"}`,
		`, {"type": "object", "properties": {"mode": {"const": "url", "type": "string"}, "url": {"type": "string"}}, "required": ["mode", "url"]}`,
		`, {"const": "plan_mode", "type": "string"}`)+`
	"McpServer": {"oneOf": [
		{"type": "object", "properties": {"type": {"const": "http", "type": "string"}, "url": {"type": "string"}}, "required": ["type", "url"]},
		{"$ref": "#/$defs/McpServerStdio"}]},
	"CloseSessionRequest": {"x-method": "session/close", "x-side": "agent", "type": "object"},
	"CloseSessionResponse": {"x-method": "session/close", "x-side": "agent", "type": "object"},
`+envelope([]string{"NewSession", "CloseSession"}, []string{"Cancel"}))
	got := map[string]string{}
	for _, c := range Compare(old, new) {
		got[c.Category+" "+c.Subject] = c.Go + " | " + c.GoDetail
	}
	for subject, want := range map[string]string{
		"method session/close (request)":      "MethodSessionClose | handled by agent; params CloseSessionRequest, result CloseSessionResponse",
		"type McpServer":                      "MCPServer | union",
		"field NewSessionRequest.mcpServers":  "NewSessionRequest.MCPServers | optional []MCPServer",
		"field NewSessionRequest.sessionId":   "NewSessionRequest.SessionID | optional SessionID",
		"field NewSessionRequest.meta.spanId": "NewSessionRequestMeta.SpanID | optional string",
		"variant Elicit[url]":                 "ElicitMode.URL | payload ElicitModeURL; closed union: SDKs built from the old schema reject it",
		`enum value SessionMode "plan_mode"`:  "SessionModePlanMode | closed enum: SDKs built from the old schema reject this value",
	} {
		if got[subject] != want {
			t.Errorf("%s: got %q, want %q", subject, got[subject], want)
		}
	}
	if len(got) != 9 { // and the two types of session/close
		t.Errorf("want 9 changes, got %d: %v", len(got), got)
	}

	// The variants of a new union, and inline types by path, named as the IR
	// names them.
	n := goNamer{new, old}
	for path, want := range map[string]string{
		"McpServer[http]":        "MCPServerHTTP",
		"NewSessionRequest.meta": "NewSessionRequestMeta",
		"Elicit[url]":            "ElicitModeURL",
	} {
		if got := n.typeName(path); got != want {
			t.Errorf("typeName(%s) = %s, want %s", path, got, want)
		}
	}
	if got := n.subject(Change{Category: "variant", Subject: "McpServer[McpServerStdio]"}); got != "MCPServer.MCPServerStdio" {
		t.Errorf("untagged variant: %s", got)
	}

	// Both report formats add the Go name where it is spelled differently.
	r := &Report{Old: "a", New: "b", Channels: []ChannelReport{{Name: "unstable", Changes: Compare(old, new)}}}
	var text, md bytes.Buffer
	r.Text(&text)
	r.Markdown(&md)
	for _, want := range []string{
		"additive added   field      NewSessionRequest.sessionId: optional SessionId [Go: NewSessionRequest.SessionID]\n",
		"additive added   type       McpServer: union [Go: MCPServer]\n",
		"additive added   type       CloseSessionRequest: struct\n", // spelled alike: no Go name
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}
	if want := "- Added field `NewSessionRequest.mcpServers`: optional \\[\\]McpServer (Go `NewSessionRequest.MCPServers`)\n"; !strings.Contains(md.String(), want) {
		t.Errorf("markdown report lacks %q:\n%s", want, md.String())
	}
}
