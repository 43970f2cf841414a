package inspect

import (
	"bytes"
	"errors"
	"io"
	"slices"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
)

// Bounds of the relay. A line is judged up to maxJudged bytes (the size
// jsonrpc accepts by default); a longer one is passed on and reported, not
// judged. Bytes of an unfinished line are held back at most holdMax bytes,
// so that a peer never acts on a frame before the inspector judged it,
// and passed on beyond that.
const (
	maxJudged = jsonrpc.DefaultMaxFrame
	holdMax   = 1 << 20
	readSize  = 64 << 10
)

// relay copies src to dst byte for byte. Each complete line is handed to
// observe (without its newline, cut to maxJudged bytes, with its length)
// before the bytes ending it are written, so a request is judged before its
// receiver can answer it. A last line without a newline is observed at the
// end of src. It returns src's or dst's error; nil at src's end.
func relay(dst io.Writer, src io.Reader, observe func(line []byte, size int)) error {
	buf := make([]byte, readSize)
	var held []byte // read, not written: the start of an unfinished line
	lc := &lineCollector{}
	for {
		n, rerr := src.Read(buf)
		data := buf[:n]
		done := 0 // data up to the end of its last complete line
		for done < len(data) {
			i := bytes.IndexByte(data[done:], '\n')
			if i < 0 {
				lc.add(data[done:])
				break
			}
			lc.add(data[done : done+i])
			lc.emit(observe)
			done += i + 1
		}
		if done > 0 {
			if err := write(dst, held, data[:done]); err != nil {
				return err
			}
			held = held[:0]
		}
		held = append(held, data[done:]...)
		if len(held) > holdMax {
			if err := write(dst, held); err != nil {
				return err
			}
			held = held[:0]
		}
		if rerr != nil {
			if lc.pending() {
				lc.emit(observe)
			}
			if err := write(dst, held); err != nil {
				return err
			}
			if errors.Is(rerr, io.EOF) {
				return nil
			}
			return rerr
		}
	}
}

func write(dst io.Writer, parts ...[]byte) error {
	for _, p := range parts {
		if len(p) == 0 {
			continue
		}
		if _, err := dst.Write(p); err != nil {
			return err
		}
	}
	return nil
}

// lineCollector gathers one line's bytes for judging, up to maxJudged:
// its buffer never grows past that.
type lineCollector struct {
	cur []byte
	n   int // the line's length so far
}

func (l *lineCollector) add(b []byte) {
	l.n += len(b)
	b = b[:min(len(b), maxJudged-len(l.cur))]
	if need := len(l.cur) + len(b); need > cap(l.cur) {
		l.cur = slices.Grow(l.cur, min(max(need, 2*cap(l.cur)), maxJudged)-len(l.cur))
	}
	l.cur = append(l.cur, b...)
}

func (l *lineCollector) pending() bool { return l.n > 0 }

func (l *lineCollector) emit(observe func([]byte, int)) {
	observe(l.cur, l.n)
	if cap(l.cur) > holdMax {
		l.cur = nil // a rare long line does not keep its buffer
	} else {
		l.cur = l.cur[:0]
	}
	l.n = 0
}
