package schemacheck

import (
	"encoding/json"

	"github.com/acpgen/acpgen/runtime/wire"
)

// decode reads one JSON document into the values the compiled validator
// judges: objects as map[string]any, arrays as []any, numbers as
// json.Number (exact, as the reference reads them), strings, booleans and
// nil. It reads with the runtime's scanner, which is several times faster
// than encoding/json into any. A later duplicate member replaces an earlier
// one, as encoding/json does.
func decode(data []byte) (any, error) {
	d := wire.NewDecoder(data, wire.Strict)
	v, err := value(d)
	if err != nil {
		return nil, err
	}
	return v, d.Finish()
}

func value(d *wire.Decoder) (any, error) {
	switch d.Peek() {
	case wire.KindObject:
		if err := d.BeginObject(); err != nil {
			return nil, err
		}
		m := map[string]any{}
		for {
			k, ok, err := d.NextKey()
			if err != nil || !ok {
				return m, err
			}
			key := string(k)
			v, err := value(d)
			if err != nil {
				return nil, err
			}
			m[key] = v
		}
	case wire.KindArray:
		if err := d.BeginArray(); err != nil {
			return nil, err
		}
		a := []any{}
		for {
			ok, err := d.NextItem()
			if err != nil || !ok {
				return a, err
			}
			v, err := value(d)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
	case wire.KindString:
		return d.ReadString()
	case wire.KindNumber:
		b, err := d.ReadNumberRaw()
		return json.Number(b), err
	case wire.KindBool:
		return d.ReadBool()
	default:
		return nil, d.ReadNull()
	}
}
