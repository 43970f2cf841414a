package acpgentest

import (
	"encoding/json"
	"testing"

	"github.com/acpgen/acpgen/internal/corpus"
	"github.com/acpgen/acpgen/runtime/wire"
)

// Codec decodes data as one type and re-encodes it.
type Codec func(data []byte, mode wire.Mode) ([]byte, error)

// Def is what the tests need of one generated type.
type Def struct {
	Codec Codec
	// Check is the validator's verdict on raw JSON: strict decoding (no
	// leniency) followed by Validate.
	Check func(data []byte) error
}

// For returns the test hooks of the generated type T, whose wire.Table is
// table (the type's own table, or wire.OwnCodec for a type with codec
// methods of its own).
func For[T any](table wire.Table) Def {
	return Def{
		Codec: func(data []byte, mode wire.Mode) ([]byte, error) {
			var v T
			if err := wire.DecodeWith(data, &v, table, mode); err != nil {
				return nil, err
			}
			return table.AppendValue(nil, &v), nil
		},
		Check: func(data []byte) error {
			var v T
			if err := wire.DecodeWith(data, &v, table, wire.Strict); err != nil {
				return err
			}
			return any(&v).(interface{ Validate() error }).Validate()
		},
	}
}

// Config is one generated package: its schema and its types by $defs name.
type Config struct {
	Schema Schema
	Defs   map[string]Def
}

// RoundTrip checks that every $defs entry has a generated type and that
// examples generated from the schema for every def (each variant, each
// optional member, unknown members) decode in both modes and re-encode to
// equal JSON.
func RoundTrip(t *testing.T, c Config) {
	schema := c.Schema.Load(t)
	ch := c.Schema.Channel
	t.Run("every def has a type", func(t *testing.T) {
		var doc struct {
			Defs map[string]json.RawMessage `json:"$defs"`
		}
		if err := json.Unmarshal(schema, &doc); err != nil {
			t.Fatal(err)
		}
		for name := range doc.Defs {
			if c.Defs[name].Codec == nil {
				t.Errorf("$defs/%s has no generated type", name)
			}
		}
		for name := range c.Defs {
			if _, ok := doc.Defs[name]; !ok {
				t.Errorf("generated codec %s names no $defs entry", name)
			}
		}
		if len(doc.Defs) != len(c.Defs) {
			t.Errorf("%d defs, %d generated types", len(doc.Defs), len(c.Defs))
		}
		t.Logf("%s: %d defs, %d generated types", ch, len(doc.Defs), len(c.Defs))
	})
	t.Run("generated examples", func(t *testing.T) {
		examples, err := corpus.Examples(schema)
		if err != nil {
			t.Fatal(err)
		}
		for _, ex := range examples {
			d, ok := c.Defs[ex.Def]
			if !ok {
				t.Errorf("%s/%s: no generated type for %s", ex.Def, ex.Name, ex.Def)
				continue
			}
			CheckRoundTrip(t, d, ex.Def+"/"+ex.Name, ex.JSON)
		}
		t.Logf("%s: %d generated examples round-tripped in both modes", ch, len(examples))
	})
}

// CheckRoundTrip decodes payload with d in both modes, re-encodes it, and
// requires JSON equal to payload that decodes again to the same bytes.
func CheckRoundTrip(t testing.TB, d Def, label string, payload []byte) {
	t.Helper()
	for _, mode := range []wire.Mode{wire.Strict, wire.Lenient} {
		out, err := d.Codec(payload, mode)
		if err != nil {
			t.Errorf("%s (mode %d): decode: %v\ninput: %s", label, mode, err, payload)
			continue
		}
		eq, diff, err := corpus.Equal(payload, out)
		if err != nil {
			t.Errorf("%s: compare: %v", label, err)
			continue
		}
		if !eq {
			t.Errorf("%s (mode %d): re-encoding differs: %s\n in: %s\nout: %s", label, mode, diff, payload, out)
			continue
		}
		// The encoding is a fixed point: decoding it again yields the same bytes.
		again, err := d.Codec(out, mode)
		if err != nil || string(again) != string(out) {
			t.Errorf("%s: re-encoding is not stable: %v\n1: %s\n2: %s", label, err, out, again)
		}
	}
}
