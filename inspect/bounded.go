package inspect

// bounded is a map that holds at most n entries: adding one more forgets
// the oldest added. The checker's state lives in them, so that a peer
// opening requests or sessions without end cannot grow it.
type bounded[V any] struct {
	m    map[string]slot[V]
	ring []string // keys by the slot they were added in
	next int
}

type slot[V any] struct {
	v V
	i int // the ring slot holding the key
}

func newBounded[V any](n int) *bounded[V] {
	return &bounded[V]{m: map[string]slot[V]{}, ring: make([]string, n)}
}

func (b *bounded[V]) get(k string) (V, bool) {
	s, ok := b.m[k]
	return s.v, ok
}

// put adds or replaces k's value.
func (b *bounded[V]) put(k string, v V) {
	if s, ok := b.m[k]; ok {
		b.m[k] = slot[V]{v, s.i}
		return
	}
	if old := b.ring[b.next]; old != "" && b.m[old].i == b.next {
		delete(b.m, old)
	}
	b.ring[b.next] = k
	b.m[k] = slot[V]{v, b.next}
	b.next = (b.next + 1) % len(b.ring)
}

func (b *bounded[V]) del(k string) { delete(b.m, k) }

func (b *bounded[V]) len() int { return len(b.m) }
