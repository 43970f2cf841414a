package proxy

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// idSpace is where the proxy's own request ids come from: JSON strings
// "<prefix>.<n>", the prefix 32 hex digits from crypto/rand (128 bits) per
// chain. A peer's ids are relayed unchanged; a peer that has seen the
// prefix could mint an id under it, so a peer's request under it is
// refused rather than relayed, and a response under it answers one of the
// proxy's own requests (next, Call) only when it comes from the side that
// request went to; it is never relayed.
type idSpace struct {
	prefix string
	last   atomic.Uint64
}

func newIDSpace() *idSpace {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand panics instead)
	return &idSpace{prefix: hex.EncodeToString(b[:]) + "."}
}

// next returns a fresh id as JSON and as its key.
func (s *idSpace) next() (wire.Raw, string) {
	id := s.prefix + strconv.FormatUint(s.last.Add(1), 10)
	return wire.Raw(wire.AppendString(nil, id)), "s" + id
}

// owns reports whether id is one of the proxy's own and returns its key.
func (s *idSpace) owns(id wire.Raw) (string, bool) {
	k := jsonrpc.IDKey(id)
	return k, strings.HasPrefix(k, "s"+s.prefix)
}
