package wire

import (
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/acpgen/acpgen/runtime/jsonpointer"
)

// Violation is one way a value breaks its schema.
type Violation struct {
	Pointer string `json:"pointer"` // RFC 6901 JSON pointer of the offending value ("" = the value itself)
	Reason  string `json:"reason"`
}

// ValidationError lists every violation found, sorted by pointer then reason.
type ValidationError struct {
	Violations []Violation
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	for i, v := range e.Violations {
		if i > 0 {
			b.WriteString("; ")
		}
		p := v.Pointer
		if p == "" {
			p = "(root)"
		}
		b.WriteString(p)
		b.WriteString(": ")
		b.WriteString(v.Reason)
	}
	return b.String()
}

type segment struct {
	key   string
	index int // used when key is ""
}

// Validator collects violations while generated Validate methods walk a
// value. It allocates nothing until a violation is found: the path is a
// stack of segments turned into a pointer only when one is reported.
type Validator struct {
	// AcceptUnknown accepts variants of closed unions whose tag this version
	// does not know (see UnknownVariant): set when checking a message received
	// in Lenient mode, so a newer peer's additions reach the handler.
	AcceptUnknown bool

	stack [24]segment
	more  []segment // segments beyond the fixed stack
	depth int
	errs  []Violation
	// unencodable are the violations reported by Variants.
	unencodable []Violation
}

// Push enters member key.
//
// Generated code calls Push, Add, Declared, the Decoder's TryNull and Errorf,
// and Key at hundreds of sites each; inlined, their bodies would be a large
// share of the generated packages' compile time, compiler memory and binary
// size. Out of line they cost a call each (a few ns per member).
//
//go:noinline
func (v *Validator) Push(key string) { v.push(segment{key: key}) }

// PushIndex enters array item i.
func (v *Validator) PushIndex(i int) { v.push(segment{index: i}) }

func (v *Validator) push(s segment) {
	if v.depth < len(v.stack) {
		v.stack[v.depth] = s
	} else {
		v.more = append(v.more[:v.depth-len(v.stack)], s)
	}
	v.depth++
}

// Pop leaves the innermost member or item.
func (v *Validator) Pop() { v.depth-- }

func (v *Validator) pointer() string {
	var b strings.Builder
	for i := 0; i < v.depth; i++ {
		var s segment
		if i < len(v.stack) {
			s = v.stack[i]
		} else {
			s = v.more[i-len(v.stack)]
		}
		b.WriteByte('/')
		if s.key == "" {
			b.WriteString(strconv.Itoa(s.index))
		} else {
			b.WriteString(jsonpointer.Escape(s.key))
		}
	}
	return b.String()
}

// Add reports a violation at the current position (out of line: see Push).
//
//go:noinline
func (v *Validator) Add(reason string) {
	v.errs = append(v.errs, Violation{Pointer: v.pointer(), Reason: reason})
}

// AddAt reports a violation at member key of the current position.
func (v *Validator) AddAt(key, reason string) {
	v.Push(key)
	v.Add(reason)
	v.Pop()
}

// Err returns the violations as a *ValidationError, or nil.
func (v *Validator) Err() error {
	if len(v.errs) == 0 {
		return nil
	}
	errs := v.errs
	sort.SliceStable(errs, func(i, j int) bool {
		if errs[i].Pointer != errs[j].Pointer {
			return errs[i].Pointer < errs[j].Pointer
		}
		return errs[i].Reason < errs[j].Reason
	})
	return &ValidationError{Violations: errs}
}

var validators = sync.Pool{New: func() any { return new(Validator) }}

// Check runs validate with a pooled Validator and returns its violations
// (see Err). Generic callers use it: a Validator handed to a method of a type
// parameter would otherwise be allocated on every call.
func Check(acceptUnknown bool, validate func(*Validator)) error {
	v := validators.Get().(*Validator)
	v.AcceptUnknown, v.depth = acceptUnknown, 0 // only what the walk reads, as borrow does
	v.errs, v.unencodable, v.more = v.errs[:0], v.unencodable[:0], v.more[:0]
	validate(v)
	err := v.Err()
	if len(v.errs) > 0 || len(v.unencodable) > 0 {
		v.errs, v.unencodable = nil, nil // the error owns the violations now
	}
	validators.Put(v)
	return err
}

// borrow returns a pooled Validator at v's position, with v's settings.
// It resets only what the walk reads: clearing the whole Validator (its
// fixed stack is most of it) costs a write barrier per word while the GC
// runs, which a Validate call would pay twice.
func (v *Validator) borrow() *Validator {
	w := validators.Get().(*Validator)
	w.AcceptUnknown, w.depth = v.AcceptUnknown, 0
	w.errs, w.unencodable, w.more = w.errs[:0], w.unencodable[:0], w.more[:0]
	for i := range v.depth {
		if i < len(v.stack) {
			w.push(v.stack[i])
		} else {
			w.push(v.more[i-len(v.stack)])
		}
	}
	return w
}

// giveBack adds what w, from borrow, found to v and returns w to the pool.
// w keeps its slices' memory for the next walk; one that found violations
// drops them, so the pool holds no error text.
func (v *Validator) giveBack(w *Validator) {
	if len(w.errs) > 0 || len(w.unencodable) > 0 {
		v.errs = append(v.errs, w.errs...)
		v.unencodable = append(v.unencodable, w.unencodable...)
		w.errs, w.unencodable = nil, nil
	}
	validators.Put(w)
}

// Count reports how many violations were found so far.
func (v *Validator) Count() int { return len(v.errs) }

// Truncate drops violations found after Count returned n; unions use it to try a variant.
func (v *Validator) Truncate(n int) { v.errs = v.errs[:n] }

// RuneCount is the string length JSON Schema's minLength and maxLength count.
func RuneCount(s string) int { return utf8.RuneCountInString(s) }

// IsURI reports whether s is an absolute URI (a scheme and a valid rest), the
// meaning of format "uri". Generated validators and the differential test's
// reference validator both use it, so they judge URIs the same way.
func IsURI(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && isScheme(u.Scheme)
}

func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}

// RawValues reports each value of m that is not valid JSON, at its key.
// Generated validators call it for maps of raw values (every "_meta"), so the
// loop is compiled once here rather than once per type.
func (v *Validator) RawValues(m map[string]Raw) {
	for k, val := range m {
		if len(val) > 0 && !Valid(val) {
			v.AddAt(k, "is not valid JSON")
		}
	}
}

// Declared reports each unknown member named like a declared one (names):
// encoding would write that member twice. Out of line: see Push.
//
//go:noinline
func (v *Validator) Declared(unknown Fields, names ...string) {
	for _, u := range unknown {
		for _, n := range names {
			if u.Name == n {
				v.AddAt(u.Name, "is a declared member; set its field instead of Unknown")
				break
			}
		}
	}
}
