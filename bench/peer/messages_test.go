// Package peer compares acpgen's generated SDK with the leading Go peer SDK
// and with baselines, all in one `go test -bench` run so the figures can be
// read as ratios. It is a module of its own so that the root module never
// depends on the peer.
package peer

import (
	"context"
	stdjson "encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	peeracp "github.com/coder/acp-go-sdk"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/xeipuuv/gojsonschema"

	"github.com/acpgen/acpgen/bench/peer/internal/benchmsg"
	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/generator/config"
	"github.com/acpgen/acpgen/generator/overlay"
	"github.com/acpgen/acpgen/runtime/wire"
)

// message is one benchmarked message: its params bytes, the def they are
// validated against, and constructors for every implementation's type.
type message struct {
	name, method, def string
	params            []byte
	acpgen            func() validatable
	peer              func() validatable
	plain             func() any
	result            any // the handler's result, a pointer to its generated type; nil for a notification
}

type validatable interface {
	Validate() error
}

var messages = []message{
	{
		name: benchmsg.SessionNew.Name, method: acp.MethodSessionNew, def: "NewSessionRequest",
		params: benchmsg.SessionNew.Params,
		acpgen: func() validatable { return new(acp.NewSessionRequest) },
		peer:   func() validatable { return new(peeracp.NewSessionRequest) },
		plain:  func() any { return new(plainNew) },
		result: &acp.NewSessionResponse{SessionID: "sess_01HZX"},
	},
	{
		name: benchmsg.Prompt.Name, method: acp.MethodSessionPrompt, def: "PromptRequest",
		params: benchmsg.Prompt.Params,
		acpgen: func() validatable { return new(acp.PromptRequest) },
		peer:   func() validatable { return new(peeracp.PromptRequest) },
		plain:  func() any { return new(plainPrompt) },
		result: &acp.PromptResponse{StopReason: acp.StopReasonEndTurn},
	},
	{
		name: benchmsg.Update.Name, method: acp.MethodSessionUpdate, def: "SessionNotification",
		params: benchmsg.Update.Params,
		acpgen: func() validatable { return new(acp.SessionNotification) },
		peer:   func() validatable { return new(peeracp.SessionNotification) },
		plain:  func() any { return new(plainUpdate) },
	},
}

// Hand-written structs for the plain-decode baselines: the members these
// messages use, no validation, no unknown-member keeping.
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

// BenchmarkMessages: for each message, every implementation decodes (and,
// where it can, validates) the same params bytes.
func BenchmarkMessages(b *testing.B) {
	for _, m := range messages {
		b.Run(m.name+"/acpgen-decode", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v := m.acpgen()
				if err := wire.DecodeWith(m.params, v, acp.TableOf(v), wire.Lenient); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(m.name+"/acpgen-decode+validate", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v := m.acpgen()
				if err := wire.DecodeWith(m.params, v, acp.TableOf(v), wire.Lenient); err != nil {
					b.Fatal(err)
				}
				if err := v.Validate(); err != nil {
					b.Fatal(err)
				}
			}
		})
		// The work a dispatch does besides the runtime's: decode, validate,
		// encode the handler's result.
		b.Run(m.name+"/acpgen-decode+validate+encode", func(b *testing.B) {
			var buf []byte
			res := acp.TableOf(m.result) // nil for a notification
			b.ReportAllocs()
			for b.Loop() {
				v := m.acpgen()
				if err := wire.DecodeWith(m.params, v, acp.TableOf(v), wire.Lenient); err != nil {
					b.Fatal(err)
				}
				if err := v.Validate(); err != nil {
					b.Fatal(err)
				}
				if res != nil {
					buf = res.AppendValue(buf[:0], m.result)
				}
			}
		})
		b.Run(m.name+"/acpgen-dispatch", func(b *testing.B) { benchDispatch(b, m, 1) })
		b.Run(m.name+"/acpgen-dispatch-2procs", func(b *testing.B) { benchDispatch(b, m, 2) })
		b.Run(m.name+"/peer-decode+validate", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				v := m.peer()
				if err := stdjson.Unmarshal(m.params, v); err != nil {
					b.Fatal(err)
				}
				if err := v.Validate(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(m.name+"/acpgen-encode", func(b *testing.B) {
			enc, _ := m.encoders(b)
			var buf []byte
			b.ReportAllocs()
			for b.Loop() {
				buf = enc(buf[:0])
			}
		})
		b.Run(m.name+"/peer-encode", func(b *testing.B) {
			_, enc := m.encoders(b)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := enc(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(m.name+"/gojsonschema", func(b *testing.B) {
			s := compiledDef(b, m.def)
			b.ReportAllocs()
			for b.Loop() {
				res, err := s.Validate(gojsonschema.NewBytesLoader(m.params))
				if err != nil {
					b.Fatal(err)
				}
				if !res.Valid() {
					b.Fatal(res.Errors())
				}
			}
		})
		b.Run(m.name+"/encoding-json", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := stdjson.Unmarshal(m.params, m.plain()); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(m.name+"/json-v2", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := jsonv2.Unmarshal(m.params, m.plain()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// encoders decodes the params once into acpgen's and the peer's types and
// returns their encoders: acpgen's table (TableOf) appending into the caller's buffer, the
// peer's encoding/json Marshal (what its connection sends with).
func (m message) encoders(tb testing.TB) (acpgen func([]byte) []byte, peer func() ([]byte, error)) {
	a, p := m.acpgen(), m.peer()
	if err := wire.DecodeWith(m.params, a, acp.TableOf(a), wire.Lenient); err != nil {
		tb.Fatal(err)
	}
	if err := stdjson.Unmarshal(m.params, p); err != nil {
		tb.Fatal(err)
	}
	t := acp.TableOf(a)
	return func(b []byte) []byte { return t.AppendValue(b, a) }, func() ([]byte, error) { return stdjson.Marshal(p) }
}

// compiledDef compiles one def of the stable schema as gen/acp is generated
// from it (the RFD overlays applied, so both validators check the same
// constraints). gojsonschema knows drafts up to 7: the 2020-12 defs are read
// as draft 7 through a wrapper whose $ref points into them.
func compiledDef(b *testing.B, def string) *gojsonschema.Schema {
	schemas.once.Do(func() {
		// The repository's configuration: the pinned release (from the
		// schema cache) and the stable channel's overlays.
		r, err := config.Setup(context.Background(), filepath.Join("..", "..", "acpgen.json"), config.Overrides{Channels: []string{"stable"}}, os.Stderr)
		if err != nil {
			schemas.err = err
			return
		}
		file := filepath.Join(r.Config.SchemaDir, r.Config.Channels[0].SchemaFile)
		data, err := os.ReadFile(file)
		if err != nil {
			schemas.err = err
			return
		}
		ovs := r.Config.Channels[0].Overlays
		merged, err := overlay.ApplyFiles(data, file, ovs)
		if err != nil {
			schemas.err = err
			return
		}
		var doc struct {
			Defs stdjson.RawMessage `json:"$defs"`
		}
		schemas.err = stdjson.Unmarshal(merged.Schema, &doc)
		schemas.defs = doc.Defs
	})
	if schemas.err != nil {
		b.Fatal(schemas.err)
	}
	sl := gojsonschema.NewSchemaLoader()
	sl.Draft = gojsonschema.Draft7
	sl.AutoDetect = false
	s, err := sl.Compile(gojsonschema.NewBytesLoader(fmt.Appendf(nil, `{"$ref":"#/$defs/%s","$defs":%s}`, def, schemas.defs)))
	if err != nil {
		b.Fatal(err)
	}
	return s
}

var schemas struct {
	once sync.Once
	defs stdjson.RawMessage
	err  error
}
