package acp_test

import (
	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/wire"
)

// decode decodes data into the generated value v points to, in mode,
// through the type's table: the codec of every generated type, whether its
// own methods or runtime/wire's interpreter do the work.
func decode(data []byte, v any, mode wire.Mode) error {
	return wire.DecodeWith(data, v, acp.TableOf(v), mode)
}

// encode is the JSON encoding of the generated value v points to.
func encode(v any) []byte { return acp.TableOf(v).AppendValue(nil, v) }
