package acphttp

import (
	"bytes"
	"fmt"
	"testing"
)

// The memory log copies what Append is given (the sender reuses its
// buffer), and what After returned stays as it was while the log takes
// more, forgets, and moves to new chunks; a message past maxChunk is kept
// whole.
func TestMemoryLogCopiesAndKeepsReplays(t *testing.T) {
	l := MemoryRetention{}.Open("", "t")
	msg := func(i int) []byte {
		if i%97 == 0 {
			return bytes.Repeat([]byte{byte('a' + i%26)}, maxChunk+i)
		}
		return fmt.Appendf(nil, `{"i":%d,"pad":%q}`, i, bytes.Repeat([]byte("x"), i%300))
	}
	buf := make([]byte, 0, 2*maxChunk)
	var held [][]byte // what After returned for message i-1
	const n = 2000
	for i := 1; i <= n; i++ {
		buf = append(buf[:0], msg(i)...)
		if err := l.Append(uint64(i), [][]byte{buf}); err != nil {
			t.Fatal(err)
		}
		clear(buf) // the sender's next message
		got, err := l.After(uint64(i-1), uint64(i))
		if err != nil || len(got) != 1 || !bytes.Equal(got[0], msg(i)) {
			t.Fatalf("After(%d, %d) = %.40q, %v", i-1, i, got, err)
		}
		held = append(held, got[0])
		if i > 300 {
			if err := l.Forget(uint64(i - 300)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i, h := range held {
		if !bytes.Equal(h, msg(i+1)) {
			t.Fatalf("message %d as After returned it changed: %.40q", i+1, h)
		}
	}
	got, err := l.After(n-300, n)
	if err != nil || len(got) != 300 {
		t.Fatalf("After(%d, %d): %d messages, %v", n-300, n, len(got), err)
	}
	for _, m := range got {
		_ = append(m, "clobber"...) // must not reach the next message
	}
	for i, m := range got {
		if want := msg(n - 299 + i); !bytes.Equal(m, want) {
			t.Fatalf("message %d: %.40q, want %.40q", n-299+i, m, want)
		}
	}
	if _, err := l.After(n-301, n); err == nil {
		t.Error("After from a forgotten message: no error")
	}
}
