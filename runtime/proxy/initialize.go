package proxy

import (
	"bytes"

	"github.com/acpgen/acpgen/runtime/wire"
)

// memberVersion is the initialize result's member a proxy must not change
// (InitializeProxyResponse: "It MUST NOT change protocolVersion").
const memberVersion = "protocolVersion"

// errNotPassedOn answers an initialize its interceptor answered without
// its successor's answer: the successor would be left uninitialized, and
// a Proxy Chains proxy must forward initialize before answering.
var errNotPassedOn = &wire.RPCError{Code: wire.CodeInternalError, Message: "proxy: initialize answered without being passed on to the successor"}

// checkInitialize holds the answer an interceptor gives initialize to
// what its successor answered: an answer without one is refused, and a
// protocolVersion the interceptor changed is set back to the successor's,
// with a warning logged.
func (c *chain) checkInitialize(x *exchange, res wire.Raw) (wire.Raw, error) {
	passed := x.passed.Load()
	if passed == nil {
		c.log.Error(errNotPassedOn.Message)
		return nil, errNotPassedOn
	}
	want, _, _ := member(*passed, memberVersion)
	got, start, end := member(res, memberVersion)
	if want == nil || bytes.Equal(got, want) {
		return res, nil
	}
	c.log.Warn("proxy: an interceptor changed initialize's protocolVersion; the successor's is answered",
		"successor", string(want), "interceptor", string(got))
	if start < 0 {
		return res, nil // required: an answer without it failed validation before
	}
	out := append(append([]byte(nil), res[:start]...), want...)
	return append(out, res[end:]...), nil
}

// member returns the value of obj's top-level member name and where it
// lies in obj (start -1: absent, or obj is not an object).
func member(obj wire.Raw, name string) (v wire.Raw, start, end int) {
	start = -1
	d := wire.NewDecoder(obj, wire.Lenient)
	if d.Peek() != wire.KindObject || d.BeginObject() != nil {
		return nil, -1, -1
	}
	for {
		key, ok, err := d.NextKey()
		if err != nil || !ok {
			return v, start, end
		}
		match := string(key) == name
		at := skipSpaceAt(obj, d.Offset())
		if err := d.Skip(); err != nil {
			return nil, -1, -1
		}
		if match {
			v, start, end = obj[at:d.Offset()], at, d.Offset()
		}
	}
}
