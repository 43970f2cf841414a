package wire

import (
	"context"
	"errors"
	"reflect"
	"strings"
)

var contextType = reflect.TypeFor[context.Context]()

// CheckHandler reports exported methods of h's concrete type that look meant
// for the handler interface iface but are not among its methods (nor among
// those of the optional interfaces in extra): a method whose parameters are
// a context.Context and a params type of one of iface's methods, or whose
// name is within two edits of one of iface's method names. Such a method is
// almost always a typo (SessionPromt for SessionPrompt): a handler embedding
// the Unimplemented handler compiles with it and answers method-not-found at
// run time. The error names each method and the method it likely meant.
func CheckHandler(h any, iface reflect.Type, extra ...reflect.Type) error {
	if h == nil {
		return errors.New("handler is nil")
	}
	known := map[string]bool{}
	params := map[reflect.Type]string{} // params type -> the method taking it
	var names []string
	for _, it := range append([]reflect.Type{iface}, extra...) {
		for i := 0; i < it.NumMethod(); i++ {
			m := it.Method(i)
			known[m.Name] = true
			if it == iface {
				names = append(names, m.Name)
				if m.Type.NumIn() == 2 {
					params[m.Type.In(1)] = m.Name
				}
			}
		}
	}
	t := reflect.TypeOf(h)
	var probs []string
	for i := 0; i < t.NumMethod(); i++ {
		m := t.Method(i)
		if known[m.Name] {
			continue
		}
		// m.Type includes the receiver.
		var meant string
		if m.Type.NumIn() == 3 && m.Type.In(1) == contextType {
			meant = params[m.Type.In(2)]
		}
		if meant == "" {
			best := 3
			for _, n := range names {
				if d := editDistance(strings.ToLower(m.Name), strings.ToLower(n)); d < best {
					best, meant = d, n
				}
			}
		}
		if meant != "" {
			probs = append(probs, m.Name+" (did you mean "+meant+"?)")
		}
	}
	if len(probs) == 0 {
		return nil
	}
	return errors.New(t.String() + " has method " + strings.Join(probs, ", ") + ", which " + iface.Name() + " does not declare: it would never be called")
}

// editDistance is the Levenshtein distance of a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			c = min(c, prev[j]+1, cur[j-1]+1)
			cur[j] = c
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
