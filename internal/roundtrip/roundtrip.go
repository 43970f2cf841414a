// Package roundtrip is the shared body of the generated packages' round-trip
// tests: every $defs entry has a codec, every generated example and every
// hand-written corpus message decodes and re-encodes to equal JSON, and
// invalid shapes fail with an error naming the member.
package roundtrip

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator/overlay"
	"github.com/acpgen/acpgen/internal/corpus"
	"github.com/acpgen/acpgen/internal/pinned"
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

// For returns the test hooks of the generated type T.
func For[T any, P interface {
	*T
	wire.Decodable
	wire.Appender
	Validate() error
}]() Def {
	return Def{
		Codec: func(data []byte, mode wire.Mode) ([]byte, error) {
			var v T
			if err := wire.Decode(data, P(&v), mode); err != nil {
				return nil, err
			}
			return P(&v).AppendJSON(nil), nil
		},
		Check: func(data []byte) error {
			var v T
			if err := wire.Decode(data, P(&v), wire.Strict); err != nil {
				return err
			}
			return P(&v).Validate()
		},
	}
}

// Config names the channel under test and its types by $defs name.
type Config struct {
	Channel string // "stable" or "unstable"
	Defs    map[string]Def
	// Overlays are the overlay files (slash-separated, relative to the
	// repository root) the package was generated with, applied in order.
	Overlays []string
}

// Root finds the repository root (the folder with go.mod) above the test's folder.
func Root(t testing.TB) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test folder")
		}
		dir = parent
	}
}

// SchemaFile is the pinned schema of a channel; tests fail, not skip, without it:
// the README's generate command pulls it.
func SchemaFile(t testing.TB, channel string) []byte {
	name := "schema.json"
	if channel == "unstable" {
		name = "schema.unstable.json"
	}
	return pinned.File(t, name)
}

// Schema is the schema a package was generated from: the pinned schema of
// its channel with the package's overlays applied.
func Schema(t testing.TB, c Config) []byte {
	base := SchemaFile(t, c.Channel)
	if len(c.Overlays) == 0 {
		return base
	}
	files := make([]string, len(c.Overlays))
	for i, f := range c.Overlays {
		files[i] = filepath.Join(Root(t), filepath.FromSlash(f))
	}
	r, err := overlay.ApplyFiles(base, c.Channel+" schema", files)
	if err != nil {
		t.Fatal(err)
	}
	return r.Schema
}

// Run runs the round-trip suite for one channel.
func Run(t *testing.T, c Config) {
	schema := Schema(t, c)
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
		t.Logf("%s: %d defs, %d generated types", c.Channel, len(doc.Defs), len(c.Defs))
	})
	t.Run("generated examples", func(t *testing.T) {
		examples, err := corpus.Examples(schema)
		if err != nil {
			t.Fatal(err)
		}
		for _, ex := range examples {
			check(t, c, ex.Def, ex.Def+"/"+ex.Name, ex.JSON)
		}
		t.Logf("%s: %d generated examples round-tripped in both modes", c.Channel, len(examples))
	})
	t.Run("corpus", func(t *testing.T) {
		msgs, err := corpus.LoadMessages(filepath.Join(Root(t), "testdata", "corpus", c.Channel))
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) == 0 {
			t.Fatal("empty corpus")
		}
		for _, m := range msgs {
			check(t, c, m.Def, filepath.Base(m.File), m.Payload)
		}
		t.Logf("%s: %d corpus messages round-tripped", c.Channel, len(msgs))
	})
	t.Run("invalid shapes", func(t *testing.T) {
		cases, err := corpus.LoadInvalid(filepath.Join(Root(t), "testdata", "corpus", "invalid"))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, inv := range cases {
			codec := c.Defs[inv.Def].Codec
			if codec == nil {
				continue // a def only the other channel has
			}
			if inv.Stage != "decode" {
				continue // enforced by Validate, not by decoding
			}
			n++
			_, err := codec(inv.JSON, wire.Strict)
			if err == nil {
				t.Errorf("%s: %s decoded without error", filepath.Base(inv.File), inv.Def)
				continue
			}
			if !strings.Contains(err.Error(), inv.ErrorContains) {
				t.Errorf("%s: error %q does not mention %q", filepath.Base(inv.File), err, inv.ErrorContains)
			}
		}
		if n == 0 {
			t.Fatal("no invalid case applies")
		}
	})
}

// check decodes payload as def in both modes, re-encodes it, and compares.
func check(t *testing.T, c Config, def, label string, payload []byte) {
	t.Helper()
	codec := c.Defs[def].Codec
	if codec == nil {
		t.Errorf("%s: no codec for %s", label, def)
		return
	}
	for _, mode := range []wire.Mode{wire.Strict, wire.Lenient} {
		out, err := codec(payload, mode)
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
		again, err := codec(out, mode)
		if err != nil || string(again) != string(out) {
			t.Errorf("%s: re-encoding is not stable: %v\n1: %s\n2: %s", label, err, out, again)
		}
	}
}
