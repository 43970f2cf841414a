package schemacheck

import (
	"math"
	"math/big"
	"strconv"
	"unicode/utf8"

	"github.com/acpgen/acpgen/internal/refschema"
	"github.com/acpgen/acpgen/runtime/wire"
)

// verdict is the interpreter's answer: valid, invalid, or unsure when the
// instance holds what it does not judge as the reference does (a duplicate
// member, which the reference reads as the last one; a string that is not
// valid UTF-8, which the reference reads with replacement characters).
type verdict uint8

const (
	valid verdict = iota
	invalid
	unsure
)

// member is one member of an object value: its unescaped name and where
// its value lies.
type member struct {
	key        string
	start, end int
}

// state is one instance being judged. An object is read into members,
// and the objects and arrays inside it with it, in one scan, however many
// schemas (allOf, the branches of a oneOf) look at them.
type state struct {
	data    []byte
	objects map[int]objectRead // by where each starts
	arrays  map[int][]span
	unsure  bool
	lastEnd int // where the object members last read ends
}

// objectRead is one object's members, and whether the reference could
// read them otherwise (a duplicate, a name that is not UTF-8): that makes
// the verdict unsure once a schema looks at the object.
type objectRead struct {
	members []member
	unsure  bool
}

// span is where an array's item lies.
type span struct{ start, end int }

// judge runs n on the whole instance, which must be one well-formed JSON
// document (Valid checks that first).
func (s *state) judge(n *node) verdict {
	start := skipSpace(s.data, 0)
	end := len(s.data)
	for end > start && isSpace(s.data[end-1]) {
		end--
	}
	if start < end && s.data[start] == '{' {
		// Reading the top object's members checks its syntax whole (each
		// value is scanned), so the instance is scanned once for both.
		s.members(start, end)
		if s.unsure || s.lastEnd != end {
			return unsure
		}
	}
	ok := s.check(n, start, end)
	switch {
	case s.unsure:
		return unsure
	case ok:
		return valid
	}
	return invalid
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// kindOf is the kind bit of the value starting with c; a number is
// typeNumber here, refined by isInteger.
func kindOf(c byte) uint8 {
	switch c {
	case '{':
		return typeObject
	case '[':
		return typeArray
	case '"':
		return typeString
	case 't', 'f':
		return typeBool
	case 'n':
		return typeNull
	}
	return typeNumber
}

// check judges the value data[start:end] (no surrounding space) against n.
func (s *state) check(n *node, start, end int) bool {
	for n.target != nil {
		n = n.target
	}
	if n.never {
		return false
	}
	k := kindOf(s.data[start])
	if n.types != 0 {
		ok := n.types&k != 0
		if !ok && k == typeNumber && n.types&typeInteger != 0 {
			ok = isInteger(s.data[start:end])
		}
		if !ok {
			return false
		}
	}
	if n.hasConsts && (k == typeObject || k == typeArray) {
		return false // consts are strings, numbers, booleans or null
	}
	switch k {
	case typeObject:
		if !s.object(n, start, end) {
			return false
		}
	case typeArray:
		if !s.array(n, start, end) {
			return false
		}
	case typeString:
		if !s.str(n, start, end) {
			return false
		}
	case typeNumber:
		if n.hasConsts && !s.numConst(n, s.data[start:end]) {
			return false
		}
		if !s.number(n, s.data[start:end]) {
			return false
		}
	case typeBool:
		if n.hasConsts && !s.constant(n, k, s.data[start] == 't', nil) {
			return false
		}
	case typeNull:
		if n.hasConsts && !s.constant(n, k, false, nil) {
			return false
		}
	}
	return s.combined(n, start, end)
}

// combined judges allOf, anyOf, oneOf and not.
func (s *state) combined(n *node, start, end int) bool {
	for _, x := range n.allOf {
		if !s.check(x, start, end) {
			return false
		}
	}
	if len(n.anyOf) > 0 {
		any := false
		for _, x := range n.anyOf {
			if s.check(x, start, end) {
				any = true
				break
			}
		}
		if !any {
			return false
		}
	}
	if len(n.oneOf) > 0 {
		matched := 0
		for _, x := range n.oneOf {
			if s.check(x, start, end) {
				if matched++; matched > 1 {
					return false
				}
			}
		}
		if matched != 1 {
			return false
		}
	}
	return n.not == nil || !s.check(n.not, start, end)
}

// constant compares a value of kind k (a string's unescaped body, or a
// boolean) with n's const or enum values.
func (s *state) constant(n *node, k uint8, b bool, str []byte) bool {
	for _, c := range n.consts {
		if c.kind != k {
			continue
		}
		switch k {
		case typeNull:
			return true
		case typeBool:
			if c.b == b {
				return true
			}
		case typeString:
			if c.s == string(str) {
				return true
			}
		}
	}
	return false
}

// numConst compares a number with n's const or enum numbers as the
// reference does: as float64 values written back.
func (s *state) numConst(n *node, num []byte) bool {
	f, err := strconv.ParseFloat(string(num), 64)
	if err != nil {
		s.unsure = true // the reference cannot judge it either
		return false
	}
	for _, c := range n.consts {
		if c.kind == typeNumber && c.f == math.Float64bits(f) {
			return true
		}
	}
	return false
}

// isInteger reports whether a JSON number is an integer, as the reference
// reads it (exactly: 1.0 and 1e2 are integers).
func isInteger(num []byte) bool {
	plain := true
	for _, c := range num {
		if c == '.' || c == 'e' || c == 'E' {
			plain = false
			break
		}
	}
	if plain {
		return true
	}
	r, ok := new(big.Rat).SetString(string(num))
	return ok && r.IsInt()
}

// members reads the object at start once, with the objects and arrays
// inside it.
func (s *state) members(start, end int) []member {
	if o, ok := s.objects[start]; ok {
		if o.unsure {
			s.unsure = true
		}
		return o.members
	}
	var d wire.Decoder
	d.Reset(s.data[start:end], wire.Strict)
	if !s.readObject(&d, start) {
		s.unsure = true
		return nil
	}
	s.lastEnd = start + d.Offset()
	return s.members(start, end)
}

// readObject reads the object at d, whose input begins at base in s.data,
// and every object and array inside it; false for malformed JSON.
func (s *state) readObject(d *wire.Decoder, base int) bool {
	d.Peek()
	at := base + d.Offset()
	if d.BeginObject() != nil {
		return false
	}
	var o objectRead
	for {
		key, ok, err := d.NextKey()
		if err != nil {
			return false
		}
		if !ok {
			break
		}
		if !utf8.Valid(key) {
			o.unsure = true
		}
		for _, m := range o.members {
			if m.key == string(key) {
				o.unsure = true // the reference keeps only the last
			}
		}
		m := member{key: string(key)}
		if !s.readValue(d, base, &m.start) {
			return false
		}
		m.end = base + d.Offset()
		o.members = append(o.members, m)
	}
	if s.objects == nil {
		s.objects = map[int]objectRead{}
	}
	s.objects[at] = o
	return true
}

// readValue reads the value at d, setting *start to where it starts.
func (s *state) readValue(d *wire.Decoder, base int, start *int) bool {
	k := d.Peek()
	*start = base + d.Offset()
	switch k {
	case wire.KindObject:
		return s.readObject(d, base)
	case wire.KindArray:
		if d.BeginArray() != nil {
			return false
		}
		var items []span
		for {
			more, err := d.NextItem()
			if err != nil {
				return false
			}
			if !more {
				break
			}
			var it span
			if !s.readValue(d, base, &it.start) {
				return false
			}
			it.end = base + d.Offset()
			items = append(items, it)
		}
		if s.arrays == nil {
			s.arrays = map[int][]span{}
		}
		s.arrays[*start] = items
		return true
	}
	return d.Skip() == nil
}

func find(ms []member, name string) int {
	for i := range ms {
		if ms[i].key == name {
			return i
		}
	}
	return -1
}

// object judges an object's keywords: the properties that are a const or
// enum first, as they tell a union's branches apart at once.
func (s *state) object(n *node, start, end int) bool {
	if n.props == nil && n.required == nil && n.additional == nil && n.deps == nil {
		return true
	}
	ms := s.members(start, end)
	for _, name := range n.cheap {
		if i := find(ms, name); i >= 0 && !s.check(n.props[name], ms[i].start, ms[i].end) {
			return false
		}
	}
	for _, name := range n.required {
		if find(ms, name) < 0 {
			return false
		}
	}
	for _, m := range ms {
		if p, ok := n.props[m.key]; ok {
			if !isCheap(n, m.key) && !s.check(p, m.start, m.end) {
				return false
			}
		} else if n.additional != nil && !s.check(n.additional, m.start, m.end) {
			return false
		}
		for _, dep := range n.deps[m.key] {
			if find(ms, dep) < 0 {
				return false
			}
		}
	}
	return true
}

func isCheap(n *node, name string) bool {
	for _, c := range n.cheap {
		if c == name {
			return true
		}
	}
	return false
}

// array judges an array's items and their count.
func (s *state) array(n *node, start, end int) bool {
	if n.items == nil && n.minItems < 0 && n.maxItems < 0 {
		return true
	}
	if items, ok := s.arrays[start]; ok {
		for _, it := range items {
			if n.items != nil && !s.check(n.items, it.start, it.end) {
				return false
			}
		}
		count := len(items)
		return (n.minItems < 0 || count >= n.minItems) && (n.maxItems < 0 || count <= n.maxItems)
	}
	var d wire.Decoder
	d.Reset(s.data[start:end], wire.Strict)
	if d.BeginArray() != nil {
		s.unsure = true
		return false
	}
	count := 0
	for {
		ok, err := d.NextItem()
		if err != nil {
			s.unsure = true
			return false
		}
		if !ok {
			break
		}
		count++
		vs := start + skipSpace(s.data[start:end], d.Offset())
		if d.Skip() != nil {
			s.unsure = true
			return false
		}
		if n.items != nil && !s.check(n.items, vs, start+d.Offset()) {
			return false
		}
	}
	return (n.minItems < 0 || count >= n.minItems) && (n.maxItems < 0 || count <= n.maxItems)
}

// str judges a string's const or enum, length, pattern and format.
func (s *state) str(n *node, start, end int) bool {
	if !n.hasConsts && n.minLen < 0 && n.maxLen < 0 && n.pattern == nil && n.format == "" {
		return true
	}
	body := s.data[start+1 : end-1]
	for _, c := range body {
		if c == '\\' {
			var d wire.Decoder
			d.Reset(s.data[start:end], wire.Strict)
			b, err := d.ReadStringBytes()
			if err != nil {
				s.unsure = true
				return false
			}
			body = b
			break
		}
	}
	if !utf8.Valid(body) {
		s.unsure = true
		return false
	}
	if n.hasConsts && !s.constant(n, typeString, false, body) {
		return false
	}
	if n.minLen >= 0 || n.maxLen >= 0 {
		l := utf8.RuneCount(body)
		if (n.minLen >= 0 && l < n.minLen) || (n.maxLen >= 0 && l > n.maxLen) {
			return false
		}
	}
	if n.pattern != nil && !n.pattern.Match(body) {
		return false
	}
	return n.format == "" || refschema.IsFormat(n.format, string(body))
}

// number judges a number's bounds and format, exactly.
func (s *state) number(n *node, num []byte) bool {
	if n.bounds == [4]*big.Rat{} && n.format == "" {
		return true
	}
	var r *big.Rat
	rat := func() *big.Rat {
		if r == nil {
			r, _ = new(big.Rat).SetString(string(num))
		}
		return r
	}
	if i, err := strconv.ParseInt(string(num), 10, 64); err == nil {
		if !n.intBounds(i, rat) {
			return false
		}
		if ok, known := intFormat(n.format, i); known {
			return ok
		}
	} else if !n.ratBounds(rat()) {
		return false
	}
	if n.format == "" {
		return true
	}
	if rat() == nil {
		s.unsure = true
		return false
	}
	return refschema.IsFormat(n.format, rat())
}

// intBounds judges an integer against the bounds, without big numbers
// when a bound is an integer of int64 range.
func (n *node) intBounds(i int64, rat func() *big.Rat) bool {
	for k, b := range n.bounds {
		if b == nil {
			continue
		}
		var c int
		if b.IsInt() && b.Num().IsInt64() {
			c = cmpInt(i, b.Num().Int64())
		} else {
			c = rat().Cmp(b)
		}
		if !boundOK(k, c) {
			return false
		}
	}
	return true
}

func (n *node) ratBounds(r *big.Rat) bool {
	for k, b := range n.bounds {
		if b != nil && (r == nil || !boundOK(k, r.Cmp(b))) {
			return false
		}
	}
	return true
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// boundOK reports whether c (the value compared with bound k) keeps bound
// k: minimum, maximum, exclusiveMinimum, exclusiveMaximum.
func boundOK(k, c int) bool {
	switch k {
	case 0:
		return c >= 0
	case 1:
		return c <= 0
	case 2:
		return c > 0
	}
	return c < 0
}

// intFormat judges the integer formats the reference knows by range,
// for an int64 value; known is false for another format.
func intFormat(format string, i int64) (ok, known bool) {
	switch format {
	case "int32":
		return i >= -1<<31 && i <= 1<<31-1, true
	case "uint16":
		return i >= 0 && i <= 1<<16-1, true
	case "uint32":
		return i >= 0 && i <= 1<<32-1, true
	case "int64", "double":
		return true, true
	case "uint64":
		return i >= 0, true
	}
	return false, false
}
