package conform

import (
	"encoding/json"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/acpgen/acpgen/generator/ir"
	"github.com/acpgen/acpgen/runtime/wire"
)

// GateSet is gates (Model.ResolveGates of a profile's Gates) indexed by
// the message they apply to, for a passive checker that applies them to
// every message of a session. Its Uses is GateUses.
//
// Almost every message uses nothing gated, so Uses first asks the
// payload's bytes whether any row could find a use: one scan of the
// payload, down the rows' paths merged into one tree, reading only the
// discriminators, enum values and member names the rows compare, with no
// decoding. Only when a row could (or the bytes are unusual: invalid
// UTF-8, a number beyond float64, malformed JSON) does it decode the
// payload and walk it as GateUses always has, so what it reports is
// GateUses' own.
type GateSet struct {
	gates []*ir.Gate
	by    map[gateKey]*methodGates
}

type gateKey struct {
	wire   string
	result bool
}

// methodGates are the rows on one message of one method, in table order,
// and their paths merged into one tree.
type methodGates struct {
	gates []*ir.Gate
	rows  []setRow
	root  gateNode
}

// setRow is a row's test on the values at its path.
type setRow struct {
	walked bool // false for a method gate
	kind   rowKind
	// disc and tag: the variant's discriminator and tag; str, num and
	// isNum: the enum value; member: a require rule's member.
	disc, tag, str, member string
	num                    float64
	isNum                  bool
}

type rowKind uint8

const (
	rowPresent rowKind = iota // any value but null is a use
	rowVariant                // an object whose discriminator holds tag
	rowNever                  // a variant told apart by shape: not judged
	rowEnum                   // a string (or number) equal to the value
	rowRequire                // an object lacking member
)

// gateNode is a place the rows' paths reach: the rows whose values are
// the ones here (ends), the rows ending here or below (below), and the
// moves on: into a named member, or into every member or item ("*").
type gateNode struct {
	ends, below uint64
	named       []*gateNode
	name        string // the member a named child is
	star        *gateNode
}

// NewGateSet indexes gates.
func NewGateSet(gates []*ir.Gate) *GateSet {
	s := &GateSet{gates: gates, by: map[gateKey]*methodGates{}}
	for _, g := range gates {
		k := gateKey{g.Method.Wire, g.Row.Result}
		mg := s.by[k]
		if mg == nil {
			mg = &methodGates{}
			s.by[k] = mg
		}
		mg.add(g)
	}
	return s
}

func (mg *methodGates) add(g *ir.Gate) {
	r := setRow{kind: rowPresent}
	path := g.Row.Path
	switch {
	case g.Row.Require:
		r.kind = rowRequire
		path, r.member = splitLast(g.Row.Path)
	case g.Variant != nil && g.Union != nil && g.Union.Discriminator != "":
		r.kind, r.disc, r.tag = rowVariant, g.Union.Discriminator, g.Variant.Tag
	case g.Variant != nil:
		r.kind = rowNever
	case g.EnumValue != nil:
		r.kind, r.str = rowEnum, g.EnumValue.String
		r.num, r.isNum = float64(g.EnumValue.Int), g.EnumValue.String == ""
	}
	i := len(mg.rows)
	if r.walked = g.Row.Path != "" || g.Row.Require; r.walked && i < 64 {
		var toks []string // as walkPath splits the path
		if path != "" {
			toks = strings.Split(strings.TrimPrefix(path, "/"), "/")
		}
		mg.root.add(toks, uint64(1)<<i)
	}
	mg.gates = append(mg.gates, g)
	mg.rows = append(mg.rows, r)
}

// add adds the row bit whose path continues with toks.
func (n *gateNode) add(toks []string, bit uint64) {
	n.below |= bit
	if len(toks) == 0 {
		n.ends |= bit
		return
	}
	if toks[0] == "*" {
		if n.star == nil {
			n.star = &gateNode{}
		}
		n.star.add(toks[1:], bit)
		return
	}
	for _, c := range n.named {
		if c.name == toks[0] {
			c.add(toks[1:], bit)
			return
		}
	}
	c := &gateNode{name: toks[0]}
	n.named = append(n.named, c)
	c.add(toks[1:], bit)
}

// Uses is GateUses(the set's gates, ...).
func (s *GateSet) Uses(m *ir.Method, inResult, fromAgent bool, payload, senderInit, receiverInit json.RawMessage) []GateUse {
	mg := s.by[gateKey{m.Wire, inResult}]
	if mg == nil {
		return nil
	}
	if mg.maybeUses(fromAgent, payload, senderInit, receiverInit) {
		return GateUses(mg.gates, m, inResult, fromAgent, payload, senderInit, receiverInit)
	}
	return nil
}

// maybeUses reports whether GateUses could report anything for payload:
// false only when no row can.
func (mg *methodGates) maybeUses(fromAgent bool, payload, senderInit, receiverInit json.RawMessage) bool {
	if len(mg.gates) > 64 {
		return true
	}
	var want uint64 // the rows whose values must be read, a bit each
	for i, g := range mg.gates {
		if g.Row.Require {
			if g.Cap.InResult == fromAgent && capGranted(senderInit, g.Cap.Tokens) {
				want |= 1 << i
			}
			continue
		}
		if g.Cap.InResult == fromAgent || capGranted(receiverInit, g.Cap.Tokens) {
			continue
		}
		if !mg.rows[i].walked {
			return true // the method itself
		}
		want |= 1 << i
	}
	if want == 0 {
		return false
	}
	s := scan{rows: mg.rows, want: want, sure: true}
	s.d.Reset(payload, wire.Strict)
	s.walk(&mg.root)
	return !s.sure || s.hits != 0 || s.d.Finish() != nil
}

// scan walks the rows' tree over a payload's bytes for the rows want,
// noting the rows that find a use (hits); sure turns false where the bytes
// could read otherwise decoded.
type scan struct {
	d          wire.Decoder
	rows       []setRow
	want, hits uint64
	sure       bool
}

// walk reads the value at the decoder, at n: tests it for the wanted rows
// ending at n, and moves on into its members or items for those below.
func (s *scan) walk(n *gateNode) {
	if !s.sure {
		return
	}
	if n.below&s.want == 0 {
		s.skip()
		return
	}
	ends := n.ends & s.want
	kind := s.d.Peek()
	if kind == wire.KindNull {
		if s.d.ReadNull() != nil {
			s.sure = false
		}
		return
	}
	var missing uint64 // require rows whose member this object lacks
	for b := ends; b != 0; b &= b - 1 {
		i := bits.TrailingZeros64(b)
		switch s.rows[i].kind {
		case rowPresent:
			s.hits |= 1 << i
		case rowRequire:
			if kind == wire.KindObject {
				missing |= 1 << i
			}
		}
	}
	switch kind {
	case wire.KindObject:
		s.members(n, ends, &missing)
		s.hits |= missing
	case wire.KindArray:
		if n.star == nil || n.star.below&s.want == 0 {
			s.skip()
			return
		}
		if s.d.BeginArray() != nil {
			s.sure = false
			return
		}
		for s.sure {
			more, err := s.d.NextItem()
			if err != nil {
				s.sure = false
			}
			if !more || err != nil {
				return
			}
			s.walk(n.star)
		}
	case wire.KindString:
		b, err := s.d.ReadStringBytes()
		if err != nil || !utf8.Valid(b) {
			s.sure = false
			return
		}
		s.enum(ends, func(r *setRow) bool { return string(b) == r.str })
	case wire.KindNumber:
		b, err := s.d.ReadNumberRaw()
		if err != nil {
			s.sure = false
			return
		}
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil {
			s.sure = false
			return
		}
		s.enum(ends, func(r *setRow) bool { return r.isNum && f == r.num })
	default:
		s.skip()
	}
}

func (s *scan) skip() {
	if s.d.Skip() != nil {
		s.sure = false
	}
}

// members reads an object at n: each member's value is read by what needs
// it (a discriminator the rows ending here compare, a named move on, the
// "*" move on), rewinding between two, else skipped; a member a require
// row asks for is cleared from missing. Every duplicate is read: a
// superset of what the decoded map holds.
func (s *scan) members(n *gateNode, ends uint64, missing *uint64) {
	if s.d.BeginObject() != nil {
		s.sure = false
		return
	}
	for s.sure {
		key, more, err := s.d.NextKey()
		if err != nil || !utf8.Valid(key) {
			s.sure = false
			return
		}
		if !more {
			return
		}
		disc := ""
		for b := ends; b != 0; b &= b - 1 {
			i := bits.TrailingZeros64(b)
			switch r := &s.rows[i]; {
			case r.kind == rowRequire && string(key) == r.member:
				*missing &^= 1 << i
			case r.kind == rowVariant && string(key) == r.disc:
				disc = r.disc
			}
		}
		var named *gateNode
		for _, c := range n.named {
			if c.name == string(key) && c.below&s.want != 0 {
				named = c
				break
			}
		}
		star := n.star
		if star != nil && star.below&s.want == 0 {
			star = nil
		}
		readers := 0
		if disc != "" {
			readers++
		}
		if named != nil {
			readers++
		}
		if star != nil {
			readers++
		}
		if readers == 0 {
			s.skip()
			continue
		}
		m := s.d.Mark()
		if disc != "" {
			s.discriminator(disc, ends)
			if readers--; readers > 0 {
				s.d.Rewind(m)
			}
		}
		if named != nil {
			s.walk(named)
			if readers--; readers > 0 {
				s.d.Rewind(m)
			}
		}
		if star != nil {
			s.walk(star)
		}
	}
}

// enum marks the enum rows of ends that match.
func (s *scan) enum(ends uint64, match func(*setRow) bool) {
	for b := ends; b != 0; b &= b - 1 {
		i := bits.TrailingZeros64(b)
		if r := &s.rows[i]; r.kind == rowEnum && match(r) {
			s.hits |= 1 << i
		}
	}
}

// discriminator reads the value of the member disc and marks the variant
// rows of ends on disc whose tag it holds.
func (s *scan) discriminator(disc string, ends uint64) {
	if s.d.Peek() != wire.KindString {
		s.skip()
		return
	}
	b, err := s.d.ReadStringBytes()
	if err != nil || !utf8.Valid(b) {
		s.sure = false
		return
	}
	for c := ends; c != 0; c &= c - 1 {
		i := bits.TrailingZeros64(c)
		if r := &s.rows[i]; r.kind == rowVariant && r.disc == disc && r.tag == string(b) {
			s.hits |= 1 << i
		}
	}
}
