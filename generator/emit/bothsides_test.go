package emit_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/acpgen/acpgen/generator"
)

// A method marked x-side "both" (npm 0.22.0 to 1.5.1's mcp/message) is
// generated for each side: both handler interfaces get it and both
// connections can send it, under the names the IR gives.
func TestBothSidesDispatch(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("..", "..", "golden", "testdata", "base.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(base, &doc); err != nil {
		t.Fatal(err)
	}
	defs := doc["$defs"].(map[string]any)
	defs["MessageRequest"] = map[string]any{"type": "object", "properties": map[string]any{"payload": map[string]any{}}, "x-method": "mcp/message", "x-side": "both"}
	defs["MessageResponse"] = map[string]any{"x-method": "mcp/message", "x-side": "both"}
	for union, def := range map[string]string{"ClientRequest": "MessageRequest", "AgentRequest": "MessageRequest"} {
		route(t, defs[union], "params", def)
	}
	for _, union := range []string{"AgentResponse", "ClientResponse"} {
		route(t, defs[union].(map[string]any)["anyOf"].([]any)[0], "result", "MessageResponse")
	}
	dir := t.TempDir()
	data, _ := json.Marshal(doc)
	if err := os.WriteFile(filepath.Join(dir, "schema.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := generator.Generate(generator.Config{Root: t.TempDir(), SchemaDir: dir, Channels: []generator.Channel{{
		Name: "stable", SchemaFile: "schema.json", OutDir: "acp", Package: "acp", ImportPath: "example.com/acp",
	}}})
	if err != nil {
		t.Fatal(err)
	}
	src := string(files["acp/dispatch.go"])
	for _, want := range []string{
		`func \(UnimplementedAgentHandler\) MCPMessage\(context.Context, \*MessageRequest\)`,
		`func \(UnimplementedClientHandler\) MCPMessage\(context.Context, \*MessageRequest\)`,
		`func \(c \*AgentConn\) MCPMessage\(ctx context.Context, params \*MessageRequest\)`,
		`func \(c \*ClientConn\) MCPMessage\(ctx context.Context, params \*MessageRequest\)`,
	} {
		if !regexp.MustCompile(want).MatchString(src) {
			t.Errorf("dispatch.go lacks %s", want)
		}
	}
}

// route adds a reference to def among the params or result branches of a
// routing envelope.
func route(t *testing.T, envelope any, member, def string) {
	t.Helper()
	branches := envelope.(map[string]any)["properties"].(map[string]any)[member].(map[string]any)
	// params nest the method defs one union deeper, beside null.
	if inner, ok := branches["anyOf"].([]any)[0].(map[string]any); ok && inner["anyOf"] != nil {
		branches = inner
	}
	branches["anyOf"] = append(branches["anyOf"].([]any), map[string]any{"title": def, "allOf": []any{map[string]any{"$ref": "#/$defs/" + def}}})
}
