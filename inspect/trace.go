package inspect

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
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
	// instead when it is not valid UTF-8.
	Raw       string `json:"raw,omitempty"`
	RawBase64 []byte `json:"rawBase64,omitempty"`
	Message
}

// Bytes is the frame as written.
func (r *Record) Bytes() []byte {
	if r.RawBase64 != nil {
		return r.RawBase64
	}
	return []byte(r.Raw)
}

// sink writes what judged frames cause: one stderr line per finding and,
// with a trace, one record per frame. A frame is judged and written whole
// before the next one, whichever direction or connection it travels.
type sink struct {
	mu     sync.Mutex
	stderr io.Writer
	trace  *bufio.Writer
	now    func() time.Time
	err    error // the first trace write error
	// Findings counts the findings at each level.
	findings map[string]int
}

func newSink(stderr, trace io.Writer) *sink {
	s := &sink{stderr: stderr, now: time.Now, findings: map[string]int{}}
	if trace != nil {
		s.trace = bufio.NewWriter(trace)
	}
	return s
}

// stream is one relayed connection: its own checker, a sink shared with
// the other connections.
type stream struct {
	*sink
	checker *Checker
	// conn names the connection in the trace; "" over stdio.
	conn string
}

// observe judges one frame written in dir.
func (s stream) observe(dir Direction, line []byte, truncated bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var msg Message
	if truncated {
		msg = Message{Kind: "invalid", Findings: []Finding{{Direction: dir, Rule: ruleTooLong.name, Level: ruleTooLong.level,
			Source: ruleTooLong.source, Detail: fmt.Sprintf("a frame over %d bytes, passed on without being judged", maxJudged)}}}
	} else {
		msg = s.checker.Observe(dir, line)
	}
	for _, f := range msg.Findings {
		s.findings[string(f.Level)]++
		fmt.Fprintln(s.stderr, f.String())
	}
	if s.trace == nil || s.err != nil {
		return
	}
	rec := Record{Time: s.now().UTC(), Direction: dir, Connection: s.conn, Message: msg}
	if utf8.Valid(line) {
		rec.Raw = string(line)
	} else {
		rec.RawBase64 = line
	}
	enc := json.NewEncoder(s.trace)
	enc.SetEscapeHTML(false)
	err := enc.Encode(rec)
	if err == nil {
		err = s.trace.Flush()
	}
	s.err = err
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
