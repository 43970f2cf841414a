package inspect

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// Record is one line of a trace (JSONL): when a frame was seen, its
// direction, its bytes, and the checker's reading of it.
type Record struct {
	Time      time.Time `json:"time"`
	Direction Direction `json:"direction"`
	// Connection names the network connection the frame travelled on
	// (see ServeNetwork); empty over stdio.
	Connection string `json:"connection,omitempty"`
	// Raw is the frame as written, without its newline; RawBase64 holds it
	// instead when it is not valid UTF-8. A frame that takes more than
	// traceRawMax bytes escaped is cut (at a character's start) to what
	// fits, and RawSize gives its length.
	Raw       string `json:"raw,omitempty"`
	RawBase64 []byte `json:"rawBase64,omitempty"`
	RawSize   int    `json:"rawSize,omitempty"`
	// FindingsOmitted counts the frame's findings past the first
	// traceFindingsMax, which the record leaves out (stderr has them all).
	FindingsOmitted int `json:"findingsOmitted,omitempty"`
	Message
}

// Bytes is the frame as written (its start when RawSize is set).
func (r *Record) Bytes() []byte {
	if r.RawBase64 != nil {
		return r.RawBase64
	}
	return []byte(r.Raw)
}

// Bounds of a trace record: whatever the frame's size, its escaped bytes
// take at most traceRawMax bytes of the record (escaped traceChunk bytes
// at a time, never copied whole), and it holds at most traceFindingsMax
// findings.
const (
	traceRawMax      = 1 << 20
	traceFindingsMax = 100
	traceChunk       = 32 << 10
)

// sink writes what judged frames cause: one stderr line per finding and,
// with a trace, one record per frame. Each connection judges and encodes
// its frames on its own; mu is held only to write a frame's finished lines,
// so a large frame on one connection does not hold up the others.
type sink struct {
	mu     sync.Mutex
	stderr io.Writer
	trace  io.Writer
	now    func() time.Time
	err    error // the first trace write error
	// Findings counts the findings at each level.
	findings map[string]int
}

func newSink(stderr, trace io.Writer) *sink {
	return &sink{stderr: stderr, trace: trace, now: time.Now, findings: map[string]int{}}
}

// stream is one relayed connection: its own checker, a sink shared with
// the other connections.
type stream struct {
	*sink
	checker *Checker
	// conn names the connection in the trace; "" over stdio.
	conn string
}

// observe judges one frame written in dir: line is the frame, or its first
// maxJudged bytes when size, the frame's length, is larger.
func (s stream) observe(dir Direction, line []byte, size int) Message {
	at := s.now().UTC()
	var msg Message
	if size > len(line) {
		msg = Message{Kind: "invalid", Findings: []Finding{{Direction: dir, Rule: ruleTooLong.name, Level: ruleTooLong.level,
			Source: ruleTooLong.source, Detail: fmt.Sprintf("a frame over %d bytes, passed on without being judged", maxJudged)}}}
	} else {
		msg = s.checker.Observe(dir, line)
	}
	var rec *bytes.Buffer
	var encErr error
	if s.trace != nil {
		rec = getBuffer()
		defer putBuffer(rec)
		encErr = encodeRecord(rec, Record{Time: at, Direction: dir, Connection: s.conn, Message: msg}, line, size)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range msg.Findings {
		s.findings[string(f.Level)]++
		fmt.Fprintln(s.stderr, f.String())
	}
	if rec == nil || s.err != nil {
		return msg
	}
	s.err = encErr
	if s.err == nil {
		_, s.err = s.trace.Write(rec.Bytes())
	}
	return msg
}

// encodeRecord appends rec, with as much of the frame as fits in
// traceRawMax bytes once escaped, to buf as one JSON line. line is the
// frame (its first maxJudged bytes when size, its length, is larger).
func encodeRecord(buf *bytes.Buffer, rec Record, line []byte, size int) error {
	if n := len(rec.Findings); n > traceFindingsMax {
		rec.Findings, rec.FindingsOmitted = rec.Findings[:traceFindingsMax], n-traceFindingsMax
	}
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil || size == 0 {
		return err
	}
	buf.Truncate(buf.Len() - len("}\n")) // reopen the object for the frame
	if len(line) > traceChunk {
		buf.Grow(traceRawMax + 64)
	}
	kept := len(line)
	if utf8.Valid(line) {
		buf.WriteString(`,"raw":"`)
		var err error
		if kept, err = escapeChunks(buf, line, traceRawMax); err != nil {
			return err
		}
	} else {
		buf.WriteString(`,"rawBase64":"`)
		kept = min(kept, traceRawMax/4*3)
		w := base64.NewEncoder(base64.StdEncoding, buf)
		w.Write(line[:kept])
		w.Close()
	}
	buf.WriteByte('"')
	if kept < size {
		buf.WriteString(`,"rawSize":` + strconv.Itoa(size))
	}
	buf.WriteString("}\n")
	return nil
}

// escapeChunks appends the longest start of text that takes at most room
// bytes escaped as the inside of a JSON string, escaping traceChunk bytes
// at a time and cutting at a character's start. It returns how many bytes
// of text it appended. text is valid UTF-8.
func escapeChunks(buf *bytes.Buffer, text []byte, room int) (int, error) {
	var scratch bytes.Buffer
	enc := json.NewEncoder(&scratch)
	enc.SetEscapeHTML(false)
	done := 0
	for done < len(text) {
		n := runeCut(text[done:], min(len(text)-done, traceChunk))
		scratch.Reset()
		if err := enc.Encode(string(text[done : done+n])); err != nil {
			return done, err
		}
		q := scratch.Bytes()
		q = q[1 : len(q)-len("\"\n")]
		if len(q) > room {
			// The last chunk that fits: a byte escapes to at most six.
			n = runeCut(text[done:], room/6)
			scratch.Reset()
			if err := enc.Encode(string(text[done : done+n])); err != nil {
				return done, err
			}
			q = scratch.Bytes()
			buf.Write(q[1 : len(q)-len("\"\n")])
			return done + n, nil
		}
		buf.Write(q)
		room -= len(q)
		done += n
	}
	return done, nil
}

// runeCut moves n back to the start of the character it falls in, so that
// text[:n] ends with a whole character.
func runeCut(text []byte, n int) int {
	for i := n; i > 0 && i > n-utf8.UTFMax; i-- {
		if i == len(text) || utf8.RuneStart(text[i]) {
			return i
		}
	}
	return n
}

// buffers holds record buffers for reuse; a buffer grown by a large frame
// is dropped rather than kept.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func getBuffer() *bytes.Buffer { return buffers.Get().(*bytes.Buffer) }

func putBuffer(b *bytes.Buffer) {
	if b.Cap() <= 64<<10 {
		b.Reset()
		buffers.Put(b)
	}
}

// ReadTrace reads a trace file's records; an error names the line.
func ReadTrace(r io.Reader, name string) ([]Record, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 2*maxJudged+(1<<20))
	var out []Record
	for n := 1; sc.Scan(); n++ {
		var rec Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, fmt.Errorf("%s:%d: not a trace record: %v", name, n, err)
		}
		out = append(out, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}
