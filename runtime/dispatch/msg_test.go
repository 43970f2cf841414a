package dispatch_test

import (
	"github.com/acpgen/acpgen/runtime/wire"
)

// msg is a message type as the generator writes them, reduced to what the
// tests need: an object with the string members "sessionId" and "x", and
// "_meta" kept as JSON.
// x "bad" fails validation; x "new" is a variant this version does not
// know, accepted only leniently. L is only for the gate tests (not encoded).
type msg struct {
	S    string   `json:"sessionId"`
	X    string   `json:"x"`
	Meta wire.Raw `json:"_meta,omitempty"`
	L    []string `json:"l,omitempty"`
}

func (m *msg) DecodeJSON(d *wire.Decoder) error {
	if err := d.BeginObject(); err != nil {
		return err
	}
	for {
		key, ok, err := d.NextKey()
		if err != nil || !ok {
			return err
		}
		switch string(key) {
		case "sessionId":
			m.S, err = d.ReadString()
		case "_meta":
			m.Meta, err = d.ReadRaw()
		case "x":
			m.X, err = d.ReadString()
		default:
			err = d.Skip()
		}
		if err != nil {
			return err
		}
	}
}

func (m *msg) AppendJSON(b []byte) []byte {
	comma := false
	b = append(b, '{')
	b = wire.AppendString(wire.Key(b, &comma, `"sessionId":`), m.S)
	b = wire.AppendString(wire.Key(b, &comma, `"x":`), m.X)
	if m.Meta != nil {
		b = append(wire.Key(b, &comma, `"_meta":`), m.Meta...)
	}
	return append(b, '}')
}

func (m *msg) ValidateWith(v *wire.Validator) {
	switch {
	case m.X == "bad":
		v.AddAt("x", "bad value")
	case m.X == "new" && !v.AcceptUnknown:
		v.AddAt("x", "unknown variant")
	}
}

func (m *msg) Validate() error {
	var v wire.Validator
	m.ValidateWith(&v)
	return v.Err()
}

func (m *msg) MarshalJSON() ([]byte, error) { return m.AppendJSON(nil), nil }
