package jsonrpc

import (
	"bufio"
	"math"
)

// ReadFrame returns br's next newline-delimited frame without its
// terminator (LF or CRLF). A line longer than max bytes is consumed chunk by
// chunk and dropped (tooBig), so it is never held whole. A final line
// without a newline is returned together with io.EOF. The frame is a copy
// the caller may keep.
//
// A line longer than br's buffer is kept in parts and assembled once at its
// end, so reading it allocates twice its length (not the several times that
// growing one slice would).
func ReadFrame(br *bufio.Reader, max int) (frame []byte, tooBig bool, err error) {
	limit := max
	if limit <= math.MaxInt-2 {
		limit += 2 // room for "\r\n", checked exactly below
	}
	var parts [][]byte
	size := 0
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooBig {
			switch {
			case size+len(chunk) > limit:
				tooBig, parts = true, nil
			case size == 0 && err != bufio.ErrBufferFull:
				// The usual case: the whole line was buffered. Copy it, as
				// handlers keep slices of it after the next read.
				frame = append(make([]byte, 0, len(chunk)), chunk...)
			default:
				parts = append(parts, append(make([]byte, 0, len(chunk)), chunk...))
				size += len(chunk)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if tooBig {
			return nil, true, err
		}
		if frame = assemble(frame, parts, size); len(frame) > max {
			return nil, true, err
		}
		return frame, false, err
	}
}

// assemble joins a line read in parts, and trims its terminator.
func assemble(frame []byte, parts [][]byte, size int) []byte {
	if parts != nil {
		frame = make([]byte, 0, size)
		for i, p := range parts {
			frame = append(frame, p...)
			parts[i] = nil // collectable as soon as copied
		}
	}
	return trimEOL(frame)
}

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}
