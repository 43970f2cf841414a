package inspect

import (
	"bytes"
	"html"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// A frame that takes long to judge, or to record, on one connection holds
// up no other connection: each connection judges and encodes its frames
// on its own, and the shared lock is held only to write finished lines.
// (Judging and recording are stalled through the clocks both read.)
func TestSlowFrameHoldsUpNoOtherConnection(t *testing.T) {
	p := testProfiles(t)
	frame := []byte(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`)
	for _, stall := range []string{"judging", "recording"} {
		t.Run(stall, func(t *testing.T) {
			var trace bytes.Buffer
			s := newSink(io.Discard, &trace)
			a := stream{sink: s, checker: NewChecker(p), conn: "1"}
			b := stream{sink: s, checker: NewChecker(p), conn: "2"}
			stalled, release := make(chan struct{}), make(chan struct{})
			slowClock := func() time.Time {
				close(stalled)
				<-release
				return time.Now()
			}
			if stall == "judging" {
				a.checker.now = slowClock
			} else {
				first := true
				s.now = func() time.Time {
					if first { // connection 1's frame: the test runs it first
						first = false
						return slowClock()
					}
					return time.Now()
				}
			}
			aDone, bDone := make(chan struct{}), make(chan struct{})
			go func() { a.observe(ToAgent, frame, len(frame)); close(aDone) }()
			<-stalled
			go func() { b.observe(ToAgent, frame, len(frame)); close(bDone) }()
			select {
			case <-bDone:
			case <-time.After(20 * time.Second):
				t.Errorf("connection 2's frame still not recorded after 20 s while connection 1's is %s", stall)
			}
			close(release)
			<-aDone
			<-bDone
			lines := strings.Split(strings.TrimSpace(trace.String()), "\n")
			if len(lines) != 2 || !strings.Contains(lines[0], `"connection":"2"`) || !strings.Contains(lines[1], `"connection":"1"`) {
				t.Errorf("trace:\n%s\nwant connection 2's record, then connection 1's", &trace)
			}
		})
	}
}

// A record's frame is cut to what fits in traceRawMax bytes escaped, at a
// character's start, with the frame's length in rawSize; findings past
// traceFindingsMax are counted, not kept; a frame that fits is whole, and
// one that is not UTF-8 is kept in base64. inspect report reads each and
// says what was left out.
func TestRecordBounded(t *testing.T) {
	long := strings.Repeat("é\x01", traceRawMax) // 3 MiB, 2 + 6 bytes escaped a pair
	many := make([]Finding, traceFindingsMax+5)
	for i := range many {
		many[i] = Finding{Direction: ToAgent, Rule: ruleLines.name, Level: ruleLines.level}
	}
	for _, c := range []struct {
		name      string
		frame     string
		findings  []Finding
		whole     bool
		note      string
		maxRecord int
	}{
		{"fits", `{"jsonrpc":"2.0","method":"x","params":{"t":"<&>\u2028"}}`, nil, true, "", 1 << 10},
		{"long text", long, nil, false, "(the first ", traceRawMax + 1<<10},
		{"long bytes", "\xff" + long, nil, false, "(the first ", traceRawMax + 1<<10},
		{"findings", "x", many, true, "(5 more findings", 64 << 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			frame := []byte(c.frame)
			rec := Record{Time: time.Unix(0, 0).UTC(), Direction: ToAgent, Message: Message{Kind: "invalid", Findings: c.findings}}
			if err := encodeRecord(&buf, rec, frame, len(frame)); err != nil {
				t.Fatal(err)
			}
			if buf.Len() > c.maxRecord {
				t.Errorf("record of %d bytes, want at most %d", buf.Len(), c.maxRecord)
			}
			recs, err := ReadTrace(&buf, "trace")
			if err != nil || len(recs) != 1 {
				t.Fatalf("%d records, %v", len(recs), err)
			}
			r := recs[0]
			got := r.Bytes()
			switch {
			case c.whole && (r.RawSize != 0 || string(got) != c.frame):
				t.Errorf("rawSize %d, frame %q; want the frame whole", r.RawSize, got)
			case !c.whole && (r.RawSize != len(frame) || len(got) < traceRawMax/6 || !strings.HasPrefix(c.frame, string(got))):
				t.Errorf("rawSize %d, %d bytes kept (its start: %v); want rawSize %d and its start", r.RawSize, len(got), strings.HasPrefix(c.frame, string(got)), len(frame))
			case !c.whole && r.RawBase64 == nil && !utf8.Valid(got):
				t.Error("the frame was cut inside a character")
			}
			if len(r.Findings) > traceFindingsMax || len(r.Findings)+r.FindingsOmitted != len(c.findings) {
				t.Errorf("%d findings kept, %d omitted; want at most %d kept of %d", len(r.Findings), r.FindingsOmitted, traceFindingsMax, len(c.findings))
			}
			var page bytes.Buffer
			if err := WriteReport(&page, "t", recs); err != nil {
				t.Fatal(err)
			}
			if c.note != "" && !strings.Contains(page.String(), html.EscapeString(c.note)) {
				t.Errorf("the report lacks %q", c.note)
			}
		})
	}
}
