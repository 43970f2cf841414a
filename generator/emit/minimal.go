package emit

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/acpgen/acpgen/generator/ir"
)

// minimalJSON is the smallest instance of t that the generated decoder
// accepts as far as required members go: each required member with the
// simplest value of its shape, recursively. over replaces members by JSON
// name at the top level. The gate tests start their initialize messages
// from it, so a schema whose initialize requires more than the version
// (v2 requires info) still gives decodable negotiations.
func minimalJSON(t *ir.Type, over map[string]any) []byte {
	v := minimalObject(t, 0)
	for k, x := range over {
		v[k] = x
	}
	b, _ := json.Marshal(v)
	return b
}

// depthLimit stops a required member cycle, which no finite instance could
// satisfy anyway.
const depthLimit = 16

func minimalObject(t *ir.Type, depth int) map[string]any {
	out := map[string]any{}
	for _, fl := range t.Fields {
		if fl.Required {
			out[fl.JSON] = minimalValue(fl.Ref, depth+1)
		}
	}
	if u := t.Union; u != nil && u.Discriminator != "" {
		for _, v := range u.Variants {
			if v.Role == ir.Tagged {
				for k, x := range minimalObject(v.Payload.Type, depth+1) {
					out[k] = x
				}
				out[u.Discriminator] = v.Tag
				break
			}
		}
	}
	return out
}

func minimalValue(r *ir.Ref, depth int) any {
	if depth > depthLimit {
		return nil
	}
	switch {
	case r.Const != nil:
		return json.RawMessage(r.Const.JSON())
	case len(r.Enum) > 0:
		return json.RawMessage(r.Enum[0].JSON())
	}
	switch r.Kind {
	case ir.String:
		if r.MinLength != nil {
			return strings.Repeat("x", *r.MinLength)
		}
		return ""
	case ir.Bool:
		return false
	case ir.Int, ir.Float:
		if r.Minimum != nil {
			if n, err := strconv.ParseFloat(*r.Minimum, 64); err == nil && n > 0 {
				return json.RawMessage(*r.Minimum)
			}
		}
		return 0
	case ir.Array:
		return []any{}
	case ir.Map, ir.Raw, ir.Routed:
		return map[string]any{}
	}
	t := r.Type
	switch t.Kind {
	case ir.Alias:
		return minimalValue(t.Target, depth+1)
	case ir.Enum:
		if len(t.EnumValues) > 0 {
			if t.EnumBase.Kind == ir.String {
				return t.EnumValues[0].String
			}
			return t.EnumValues[0].Int
		}
		return ""
	}
	return minimalObject(t, depth)
}
