// Package bench measures the generated decoders against plain decoding of the
// same bytes into hand-written structs; compare the figures as ratios of one run.
package bench

import (
	stdjson "encoding/json"
	"testing"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/wire"
	jsonv2 "github.com/go-json-experiment/json"
)

var messages = map[string][]byte{
	"session_new": []byte(`{"cwd":"/home/user/project","mcpServers":[{"name":"fs","command":"/usr/bin/mcp-fs","args":["--root","/home/user/project"],"env":[{"name":"LOG","value":"debug"}]}],"additionalDirectories":["/home/user/lib","/opt/shared"]}`),
	"prompt":      []byte(`{"sessionId":"sess_01HZX","prompt":[{"type":"text","text":"Explain the build failure in main.go"},{"type":"text","text":"Here is the log output from the last run of the tests"},{"type":"text","text":"Please keep the answer short."}]}`),
	"update":      []byte(`{"sessionId":"sess_01HZX","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"The build fails because the import path is wrong."}}}`),
}

// Hand-written equivalents for the plain-decode baselines.
type plainEnv struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}
type plainMCP struct {
	Type    string     `json:"type,omitempty"`
	Name    string     `json:"name"`
	Command string     `json:"command"`
	Args    []string   `json:"args"`
	Env     []plainEnv `json:"env"`
}
type plainNew struct {
	Cwd                   string     `json:"cwd"`
	MCPServers            []plainMCP `json:"mcpServers"`
	AdditionalDirectories []string   `json:"additionalDirectories,omitempty"`
}
type plainBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}
type plainPrompt struct {
	SessionID string       `json:"sessionId"`
	Prompt    []plainBlock `json:"prompt"`
}
type plainUpdate struct {
	SessionID string `json:"sessionId"`
	Update    struct {
		SessionUpdate string     `json:"sessionUpdate"`
		Content       plainBlock `json:"content"`
	} `json:"update"`
}

func plainTarget(name string) func() any {
	switch name {
	case "session_new":
		return func() any { return new(plainNew) }
	case "prompt":
		return func() any { return new(plainPrompt) }
	}
	return func() any { return new(plainUpdate) }
}

func generated(name string) func() any {
	switch name {
	case "session_new":
		return func() any { return new(acp.NewSessionRequest) }
	case "prompt":
		return func() any { return new(acp.PromptRequest) }
	}
	return func() any { return new(acp.SessionNotification) }
}

// decode decodes data into v, a pointer to a generated type, with its table.
func decode(data []byte, v any) error {
	return wire.DecodeWith(data, v, acp.TableOf(v), wire.Lenient)
}

func BenchmarkDecode(b *testing.B) {
	for _, name := range []string{"session_new", "prompt", "update"} {
		data := messages[name]
		b.Run(name+"/acpgen", func(b *testing.B) {
			mk := generated(name)
			b.ReportAllocs()
			for b.Loop() {
				if err := decode(data, mk()); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/acpgen+validate", func(b *testing.B) {
			mk := generated(name)
			b.ReportAllocs()
			for b.Loop() {
				v := mk()
				if err := decode(data, v); err != nil {
					b.Fatal(err)
				}
				if err := v.(interface{ Validate() error }).Validate(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/encoding-json", func(b *testing.B) {
			mk := plainTarget(name)
			b.ReportAllocs()
			for b.Loop() {
				if err := stdjson.Unmarshal(data, mk()); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/json-v2", func(b *testing.B) {
			mk := plainTarget(name)
			b.ReportAllocs()
			for b.Loop() {
				if err := jsonv2.Unmarshal(data, mk()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCodec is decode + Validate, and encode, of each message through
// the generated code alone: the pair an A/B of two generations of the
// generated code compares (benchstat over interleaved runs).
func BenchmarkCodec(b *testing.B) {
	for _, name := range []string{"session_new", "prompt", "update"} {
		data := messages[name]
		mk := generated(name)
		b.Run(name+"/decode+validate", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v := mk()
				if err := decode(data, v); err != nil {
					b.Fatal(err)
				}
				if err := v.(interface{ Validate() error }).Validate(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/encode", func(b *testing.B) {
			v := mk()
			if err := decode(data, v); err != nil {
				b.Fatal(err)
			}
			t := acp.TableOf(v)
			buf := make([]byte, 0, 1024)
			b.ReportAllocs()
			for b.Loop() {
				buf = t.AppendValue(buf[:0], v)
			}
		})
	}
}
