package conform

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator/facts"
	"github.com/acpgen/acpgen/generator/ir"
	"github.com/acpgen/acpgen/internal/pinned"
)

// TestGateSetAgreesWithGateUses: GateSet.Uses reports what GateUses does,
// on every channel's gates, for payloads built to use each row, to miss it
// narrowly, and to read unusually (duplicates, escapes, invalid UTF-8,
// malformed JSON, numbers beyond float64), under nothing granted and
// everything granted, from either side. Its byte scan must also settle
// most of them without decoding, or it saves nothing.
func TestGateSetAgreesWithGateUses(t *testing.T) {
	cases, fast := 0, 0
	for _, channel := range []string{"stable", "unstable", "v2", "v2-unstable"} {
		p, err := LoadProfile(context.Background(), ProfileOptions{Config: filepath.Join(pinned.Root(t), "acpgen.json"), Channel: channel})
		if err != nil {
			t.Fatal(err)
		}
		gates, _ := p.Model.ResolveGates(p.Gates)
		c, f := compareGateSet(t, channel, gates)
		cases, fast = cases+c, fast+f
	}
	// The tables gate no enum value: rows of each kind on one method.
	m := &ir.Method{Wire: "m"}
	capOf := func(name string) *ir.CapabilityPath {
		return &ir.CapabilityPath{Path: name, Tokens: []string{name}}
	}
	synthetic := []*ir.Gate{
		{Method: m, Row: facts.Gate{Path: "/kind"}, Cap: capOf("a"), EnumValue: &ir.EnumValue{String: "x"}},
		{Method: m, Row: facts.Gate{Path: "/items/*/level"}, Cap: capOf("b"), EnumValue: &ir.EnumValue{Int: 2}},
		{Method: m, Row: facts.Gate{Path: "/items/*/level"}, Cap: capOf("c"), EnumValue: &ir.EnumValue{Int: 0}},
		{Method: m, Row: facts.Gate{Path: "/opt"}, Cap: capOf("d")},
		{Method: m, Row: facts.Gate{Path: "/items/*/need", Require: true}, Cap: capOf("e")},
		// one member read twice: a discriminator and a path on, a name and "*"
		{Method: m, Row: facts.Gate{Path: "/u"}, Cap: capOf("f"), Union: &ir.Union{Discriminator: "t"}, Variant: &ir.Variant{Tag: "a"}},
		{Method: m, Row: facts.Gate{Path: "/u/t"}, Cap: capOf("g"), EnumValue: &ir.EnumValue{String: "b"}},
		{Method: m, Row: facts.Gate{Path: "/obj/*"}, Cap: capOf("h"), EnumValue: &ir.EnumValue{String: "y"}},
		{Method: m, Row: facts.Gate{Path: "/obj/k"}, Cap: capOf("i"), EnumValue: &ir.EnumValue{String: "x"}},
	}
	c, f := compareGateSet(t, "synthetic", synthetic)
	cases, fast = cases+c, fast+f
	// A member two rows read is read twice, not handed to decoding.
	mg := NewGateSet(synthetic).by[gateKey{"m", false}]
	for doc, want := range map[string]bool{
		`{"u":{"t":"z"},"obj":{"k":"q","j":"w"}}`: false,
		`{"u":{"t":"a"}}`:                         true,
		`{"u":{"t":"b"}}`:                         true,
		`{"obj":{"j":"x","k":"y"}}`:               true,
		`{"obj":{"k":"x"}}`:                       true,
	} {
		if got := mg.maybeUses(true, json.RawMessage(doc), json.RawMessage(`{}`), json.RawMessage(`{}`)); got != want {
			t.Errorf("%s: maybeUses %v, want %v", doc, got, want)
		}
	}
	if cases == 0 || fast < cases/4 {
		t.Errorf("%d of %d cases settled without decoding", fast, cases)
	}
}

// compareGateSet compares GateSet.Uses with GateUses on gates for the
// payloads of payloadsFor, returning how many cases it compared and how
// many the byte scan settled.
func compareGateSet(t *testing.T, name string, gates []*ir.Gate) (cases, fast int) {
	t.Helper()
	set := NewGateSet(gates)
	inits := []json.RawMessage{json.RawMessage(`{}`), grantingAll(gates), nil}
	for _, g := range gates {
		for _, payload := range payloadsFor(g) {
			for _, fromAgent := range []bool{false, true} {
				for _, sender := range inits {
					for _, recv := range inits {
						want := GateUses(gates, g.Method, g.Row.Result, fromAgent, payload, sender, recv)
						got := set.Uses(g.Method, g.Row.Result, fromAgent, payload, sender, recv)
						if !sameUses(got, want) {
							t.Errorf("%s %s %s from agent %v, %s / %s:\n%s\ngot  %+v\nwant %+v", name, g.Method.Wire, g.Row.Path, fromAgent, sender, recv, payload, got, want)
						}
						cases++
						if mg := set.by[gateKey{g.Method.Wire, g.Row.Result}]; !mg.maybeUses(fromAgent, payload, sender, recv) {
							fast++
						}
					}
				}
			}
		}
	}
	return cases, fast
}

// sameUses compares two lists of uses as sets: GateUses lists the members
// of an object in Go's map order.
func sameUses(a, b []GateUse) bool {
	key := func(us []GateUse) []string {
		var out []string
		for _, u := range us {
			out = append(out, fmt.Sprintf("%+v", u))
		}
		sort.Strings(out)
		return out
	}
	return reflect.DeepEqual(key(a), key(b))
}

// grantingAll is an initialize message granting every capability the
// gates name, both sides' members in one object.
func grantingAll(gates []*ir.Gate) json.RawMessage {
	root := map[string]any{}
	for _, g := range gates {
		m := root
		for i, tok := range g.Cap.Tokens {
			if i == len(g.Cap.Tokens)-1 {
				if _, ok := m[tok]; !ok {
					m[tok] = true
				}
				break
			}
			next, ok := m[tok].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[tok] = next
			}
			m = next
		}
	}
	b, _ := json.Marshal(root)
	return b
}

// payloadsFor builds payloads around g's path: its value in several
// shapes, reached through every way the path's "*" can read.
func payloadsFor(g *ir.Gate) []json.RawMessage {
	path := g.Row.Path
	var ends []string
	switch {
	case g.Row.Require:
		var member string
		path, member = splitLast(path)
		m, _ := json.Marshal(member)
		ends = []string{`{}`, `{` + string(m) + `:null}`, `{"x":1}`, `[]`, `null`, `{` + string(m) + `:1,` + string(m) + `:2}`}
	case g.Variant != nil && g.Union != nil && g.Union.Discriminator != "":
		d, _ := json.Marshal(g.Union.Discriminator)
		tag, _ := json.Marshal(g.Variant.Tag)
		dk := string(d)
		escaped := `"` + strings.Replace(g.Union.Discriminator, g.Union.Discriminator[:1], fmt.Sprintf(`\u%04x`, g.Union.Discriminator[0]), 1) + `"`
		ends = []string{
			`{` + dk + `:` + string(tag) + `,"text":"` + strings.Repeat("x", 300) + `"}`,
			`{"text":"abc",` + dk + `:` + string(tag) + `}`,
			`{` + dk + `:"other"}`,
			`{` + dk + `:"other",` + dk + `:` + string(tag) + `}`,
			`{` + dk + `:` + string(tag) + `,` + dk + `:"other"}`,
			`{` + escaped + `:` + string(tag) + `}`,
			`{` + dk + `:"\u00e9t\u00e9"}`,
			`{` + dk + `:"` + "\xff" + `"}`,
			`{` + dk + `:7}`,
			`"` + g.Variant.Tag + `"`,
			`null`, `[]`,
		}
	case g.EnumValue != nil:
		v, _ := json.Marshal(g.EnumValue.String)
		if g.EnumValue.String == "" {
			v = []byte(fmt.Sprint(g.EnumValue.Int))
		}
		ends = []string{string(v), `"other"`, `""`, `0`, `2`, `2.0`, `-0`, `1e999`, `{}`, `null`, `"x"`}
	default:
		ends = []string{`{}`, `true`, `false`, `0`, `""`, `[]`, `null`}
	}
	var out []json.RawMessage
	for _, end := range ends {
		for _, doc := range around(path, end) {
			out = append(out, json.RawMessage(doc))
		}
	}
	return append(out, json.RawMessage(`{}`), json.RawMessage(`[]`), json.RawMessage(`{"a":`), json.RawMessage(`{} x`), json.RawMessage(`{"`+"\xff"+`":1}`))
}

// around places end at path in documents: each "*" as an array of two
// items and as an object of two members, a named member beside others.
func around(path, end string) []string {
	toks := []string{}
	if path != "" {
		toks = strings.Split(strings.TrimPrefix(path, "/"), "/")
	}
	docs := []string{end}
	for i := len(toks) - 1; i >= 0; i-- {
		var next []string
		for _, d := range docs {
			if toks[i] == "*" {
				next = append(next, `[`+d+`,{}]`, `{"k":`+d+`,"k2":null}`)
				continue
			}
			k, _ := json.Marshal(toks[i])
			next = append(next, `{"before":[1,{"x":"y"}],`+string(k)+`:`+d+`}`, `{`+string(k)+`:null,`+string(k)+`:`+d+`}`)
		}
		docs = next
	}
	return docs
}
