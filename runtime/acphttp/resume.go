package acphttp

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/acpgen/acpgen/runtime/wire"
)

// Resumable event streams (the RFD draft "durable & resumable HTTP
// transport"): every message a Streamable HTTP event stream carries has a
// cursor, "TAG.N", where TAG is random per stream and N counts the stream's
// messages from 1. It is the event's SSE id and, in a request or
// notification, params._meta["acp/cursor"]. A stream keeps the messages it
// has delivered (Options.RetainMessages, RetainFor, MaxRetained), so that a
// client whose GET dropped can ask for what followed its last cursor.

// HeaderStreamCursor is on the answer to every event stream GET: the cursor
// the stream starts after (what a resume from it replays nothing before).
// A client that has received no event yet resumes from it.
const HeaderStreamCursor = "Acp-Stream-Cursor"

// MetaCursor is the _meta member of a request's or notification's params
// that carries its cursor.
const MetaCursor = "acp/cursor"

// Defaults for Options' retention.
const (
	// DefaultRetainMessages holds a turn's 1,000 missed updates and its
	// answer with room for what socket buffers swallowed at the cut: about
	// 1.1 MiB for a stream of one-word chunks (BenchmarkRetainedMemory: 268
	// bytes each), within MaxRetained, which bounds the server's total.
	DefaultRetainMessages = 4096
)

// Reasons a resume is refused with, as the 409 body's "reason".
const (
	// ResumeUnknown: the cursor was never issued by this stream (another
	// connection's, another principal's, a connection or session stream
	// that no longer exists, or not a cursor at all).
	ResumeUnknown = "unknown_cursor"
	// ResumeExpired: messages after the cursor are no longer retained.
	ResumeExpired = "expired_cursor"
	// ResumeInUse: the stream has a receiver already (another resume won).
	ResumeInUse = "stream_in_use"
)

// retainOverhead is what each retained message counts against
// Options.MaxRetained on top of its length.
const retainOverhead = 64

// entry is one message of an event stream: its cursor's number, the
// message as sent (the cursor in its params), and when it was delivered.
type entry struct {
	n   uint64
	msg []byte
	at  time.Time
	// borrowed: msg is a buffer the sender reuses once retain returns.
	borrowed bool
}

func newStreamTag() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func formatCursor(tag string, n uint64) string { return tag + "." + strconv.FormatUint(n, 10) }

// parseCursor reads a cursor of the stream tagged tag.
func parseCursor(tag, cursor string) (uint64, bool) {
	t, num, ok := strings.Cut(cursor, ".")
	if !ok || t != tag {
		return 0, false
	}
	n, err := strconv.ParseUint(num, 10, 64)
	return n, err == nil
}

func (o *Options) retainDefaults() {
	if o.RetainMessages == 0 {
		o.RetainMessages = DefaultRetainMessages
	}
	if o.RetainFor <= 0 {
		o.RetainFor = o.IdleTimeout
	}
	if o.MaxRetained <= 0 {
		o.MaxRetained = o.MaxServerBuffered / 4
	}
	if o.Retention == nil {
		o.Retention = MemoryRetention{}
	}
}

// retainLocked keeps delivered messages in box's log (see outbox.retain),
// unless the connection is gone. Called with c.mu held.
func (c *streamConn) retainLocked(box *outbox, es []entry) {
	if len(es) == 0 {
		return
	}
	if c.logsGone {
		box.floor = es[len(es)-1].n
		return
	}
	box.retain(c.s, c.principal, es)
}

// kept is what an outbox remembers of a retained message to apply the
// bounds: its charge against MaxRetained and when it was delivered.
type kept struct {
	size int64
	at   int64 // UnixNano
}

var errNotRetained = errors.New("acphttp: messages not retained")

// retain keeps delivered messages (contiguous numbers) in b's log, within
// RetainMessages and the server's MaxRetained: a message that does not fit
// evicts the box's oldest ones, and if it still does not fit the log is
// emptied (a resume from before it is then refused as expired). Both
// profiles' streams keep their logs so. The log itself (Options.Retention)
// is told what to forget, then given the messages kept.
func (b *outbox) retain(s *Server, owner string, es []entry) {
	last := es[len(es)-1].n
	if s.o.RetainMessages < 0 {
		b.floor = last
		return
	}
	inLog := b.floor + uint64(len(b.kept)) // the last number the log holds
	for _, e := range es {
		n := int64(len(e.msg)) + retainOverhead
		fits := true
		for !s.budget.retain(n) {
			if len(b.kept) == 0 {
				b.floor, fits = e.n, false
				break
			}
			b.evictMeta(s)
		}
		if !fits {
			continue
		}
		b.kept = append(b.kept, kept{size: n, at: e.at.UnixNano()})
		b.logBytes += n
		for len(b.kept) > s.o.RetainMessages {
			b.evictMeta(s)
		}
	}
	b.syncForget()
	from := max(inLog, b.floor) + 1 // the first number not in the log yet
	if len(b.kept) == 0 || from > last {
		return
	}
	if b.log == nil {
		b.log = s.o.Retention.Open(owner, b.tag)
		_, b.logCopies = b.log.(copyingLog)
	}
	var msgs [][]byte
	if b.logCopies {
		msgs = b.msgs[:0]
	} else {
		msgs = make([][]byte, 0, last-from+1)
	}
	for _, e := range es {
		if e.n < from {
			continue
		}
		m := e.msg
		if e.borrowed && !b.logCopies {
			m = bytes.Clone(m)
		}
		msgs = append(msgs, m)
	}
	err := b.log.Append(from, msgs)
	if b.logCopies {
		clear(msgs)
		b.msgs = msgs[:0]
	}
	if err != nil {
		// Nothing after from-1 is held: keep none of it, and forget
		// what came before, as a log past its bound would.
		b.dropMeta(s)
		b.floor = last
		b.syncForget()
	}
}

// copyingLog is a StreamLog whose Append copies what it keeps: it may be
// given buffers that are reused once it returns, and the slice of them.
type copyingLog interface {
	StreamLog
	appendCopies()
}

// evictMeta drops b's oldest retained message from its bounds; syncForget
// tells the log.
func (b *outbox) evictMeta(s *Server) {
	k := b.kept[0]
	b.kept = b.kept[1:]
	if len(b.kept) == 0 {
		b.kept = nil
	}
	b.floor++
	b.logBytes -= k.size
	s.budget.unretain(k.size)
}

// dropMeta drops every retained message from b's bounds.
func (b *outbox) dropMeta(s *Server) {
	for len(b.kept) > 0 {
		b.evictMeta(s)
	}
}

// syncForget tells b's log to forget what the bounds evicted.
func (b *outbox) syncForget() {
	if b.floor <= b.forgot {
		return
	}
	b.forgot = b.floor
	if b.log != nil {
		b.log.Forget(b.floor)
	}
}

// trim drops what b has retained longer than RetainFor.
func (b *outbox) trim(s *Server, now time.Time) {
	limit := now.UnixNano() - int64(s.o.RetainFor)
	for len(b.kept) > 0 && b.kept[0].at < limit {
		b.evictMeta(s)
	}
	b.syncForget()
}

// dropLog gives back everything b retains and closes its log.
func (b *outbox) dropLog(s *Server) {
	b.dropMeta(s)
	b.forgot = b.floor
	if b.log != nil {
		b.log.Close()
		b.log = nil
	}
}

// after returns what b delivered after cursor, or the reason a resume from
// it is refused (ResumeUnknown, ResumeExpired).
func (b *outbox) after(cursor string) ([]entry, string) {
	n, ok := parseCursor(b.tag, cursor)
	switch {
	case !ok || n > b.sent:
		return nil, ResumeUnknown
	case n < b.floor:
		return nil, ResumeExpired
	case n == b.sent:
		return nil, ""
	}
	// The log holds floor+1 .. sent, contiguous.
	msgs, err := b.log.After(n, b.sent)
	if err != nil || uint64(len(msgs)) != b.sent-n {
		return nil, ResumeExpired
	}
	out := make([]entry, len(msgs))
	for i, m := range msgs {
		out[i] = entry{n: n + 1 + uint64(i), msg: m}
	}
	return out, ""
}

// trimLogs drops what has been retained longer than RetainFor and forgets
// session streams that hold nothing and have no receiver.
func (c *streamConn) trimLogs(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range append([]*outbox{c.conn}, mapValues(c.sessions)...) {
		b.trim(c.s, now)
	}
	for s, b := range c.sessions {
		if !b.leased && len(b.q) == 0 && len(b.kept) == 0 {
			c.forgetLocked(s, b)
		}
	}
}

// forgetLocked drops a session's outbox that holds nothing. The tag of one
// that delivered messages is remembered (up to MaxBufferedSessions of
// them), so that a resume from its cursors is refused as expired rather
// than unknown. Called with mu held.
func (c *streamConn) forgetLocked(session string, b *outbox) {
	delete(c.sessions, session)
	b.dropLog(c.s)
	if b.sent == 0 || c.s.o.RetainMessages < 0 {
		return
	}
	if c.gone == nil {
		c.gone = map[string]struct{}{}
	}
	if len(c.goneOrder) >= c.s.o.MaxBufferedSessions {
		delete(c.gone, c.goneOrder[0])
		c.goneOrder = c.goneOrder[1:]
	}
	c.gone[b.tag] = struct{}{}
	c.goneOrder = append(c.goneOrder, b.tag)
}

// dropLogs gives back what every stream of c retains: the connection is
// gone, so nothing can resume.
func (c *streamConn) dropLogs() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropLogsLocked()
}

func (c *streamConn) dropLogsLocked() {
	c.logsGone = true
	for _, b := range append([]*outbox{c.conn}, mapValues(c.sessions)...) {
		b.dropLog(c.s)
	}
}

// resumeLocked checks a resume from cursor on box (nil: a session stream
// the connection does not have) and returns what to replay, or the reason
// to refuse. Called with mu held.
func (c *streamConn) resumeLocked(box *outbox, cursor string) ([]entry, string) {
	if box == nil || c.logsGone {
		tag, _, _ := strings.Cut(cursor, ".")
		if _, ok := c.gone[tag]; ok && !c.logsGone {
			return nil, ResumeExpired
		}
		return nil, ResumeUnknown
	}
	replay, reason := box.after(cursor)
	if reason == "" && box.leased {
		// The receiver may be a dropped GET the server has not seen end
		// (a proxy holds its side open while the stream is silent): a
		// write to it now shows whether it is still there.
		select {
		case box.probe <- struct{}{}:
		default:
		}
		return nil, ResumeInUse
	}
	return replay, reason
}

// refuseResume answers a resume GET with 409 and a JSON reason.
func refuseResume(w http.ResponseWriter, reason string) {
	msg := map[string]string{
		ResumeUnknown: "the stream never issued this cursor",
		ResumeExpired: "messages after this cursor are no longer retained",
		ResumeInUse:   "the stream has a receiver already",
	}[reason]
	b, _ := json.Marshal(map[string]string{"reason": reason, "message": msg})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusConflict)
	w.Write(b)
}

// cursorSlot is where a cursor goes in a message: at off, after the
// opening brace of params._meta (meta) or of params (a new _meta member);
// empty tells whether that object has no members yet. off < 0: the message
// has no params object (a response), or its _meta is not an object or
// already names a cursor, and carries its cursor as the SSE id only.
type cursorSlot struct {
	off   int
	meta  bool
	empty bool
}

// findCursorSlot finds the slot in one pass over msg, which must be a
// JSON object; its last "params" member decides.
func findCursorSlot(msg []byte) cursorSlot {
	none := cursorSlot{off: -1}
	var d wire.Decoder
	d.Reset(msg, wire.Strict)
	if d.Peek() != wire.KindObject || d.BeginObject() != nil {
		return none
	}
	slot := none
	for {
		key, more, err := d.NextKey()
		if err != nil {
			return none
		}
		if !more {
			break
		}
		isParams := string(key) == "params"
		if isParams && d.Peek() == wire.KindObject {
			var ok bool
			if slot, ok = paramsSlot(&d, msg); !ok {
				return none
			}
			continue
		}
		if isParams {
			slot = none
		}
		if d.Skip() != nil {
			return none
		}
	}
	if d.Finish() != nil {
		return none
	}
	return slot
}

// paramsSlot reads the params object d is at, through its closing brace,
// and returns the slot in it, which its first _meta member decides. ok is
// false when the object is not JSON.
func paramsSlot(d *wire.Decoder, msg []byte) (slot cursorSlot, ok bool) {
	if d.BeginObject() != nil {
		return slot, false
	}
	slot = cursorSlot{off: d.Offset(), empty: closesAt(msg, d.Offset())}
	metaSeen := false
	for {
		key, more, err := d.NextKey()
		if err != nil {
			return slot, false
		}
		if !more {
			return slot, true
		}
		isMeta := !metaSeen && string(key) == "_meta"
		metaSeen = metaSeen || isMeta
		if !isMeta || d.Peek() != wire.KindObject {
			if isMeta {
				slot = cursorSlot{off: -1} // not an object: no cursor
			}
			if d.Skip() != nil {
				return slot, false
			}
			continue
		}
		if d.BeginObject() != nil {
			return slot, false
		}
		slot = cursorSlot{off: d.Offset(), meta: true, empty: closesAt(msg, d.Offset())}
		for {
			key, more, err := d.NextKey()
			if err != nil {
				return slot, false
			}
			if !more {
				break
			}
			if string(key) == MetaCursor {
				slot = cursorSlot{off: -1} // named already: no other
			}
			if d.Skip() != nil {
				return slot, false
			}
		}
	}
}

// closesAt reports whether the object whose opening brace ends before i
// has no members: the next byte past white space is its closing brace.
func closesAt(b []byte, i int) bool {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i < len(b) && b[i] == '}'
}

// withCursor returns a copy of msg with the cursor TAG.n inserted at slot.
func withCursor(msg []byte, slot cursorSlot, tag string, n uint64) []byte {
	return appendStamped(make([]byte, 0, stampedCap(msg, tag)), msg, slot, tag, n)
}

// stampedCap is what msg with a cursor of tag takes at most: the _meta
// member, the cursor with 20 digits, quotes, braces and comma.
func stampedCap(msg []byte, tag string) int {
	return len(msg) + len(`"_meta":{"`+MetaCursor+`":"."},`) + len(tag) + 20
}

// appendStamped appends msg to dst with the cursor TAG.n inserted at slot.
// A tag is hex (newStreamTag), so the cursor is a JSON string as it is.
func appendStamped(dst, msg []byte, slot cursorSlot, tag string, n uint64) []byte {
	if slot.off < 0 {
		return append(dst, msg...)
	}
	dst = append(dst, msg[:slot.off]...)
	if !slot.meta {
		dst = append(dst, `"_meta":{`...)
	}
	dst = append(dst, `"`+MetaCursor+`":"`...)
	dst = append(dst, tag...)
	dst = append(dst, '.')
	dst = strconv.AppendUint(dst, n, 10)
	dst = append(dst, '"')
	if !slot.meta {
		dst = append(dst, '}')
	}
	if !slot.empty {
		dst = append(dst, ',')
	}
	return append(dst, msg[slot.off:]...)
}

// writeEvent writes one message as an event, its data line first (what
// readers of plain event streams look for), then its cursor as the id.
func writeEvent(w io.Writer, tag string, e entry) error {
	if _, err := io.WriteString(w, "data: "); err != nil {
		return err
	}
	if _, err := w.Write(e.msg); err != nil {
		return err
	}
	var tail [64]byte
	t := append(tail[:0], "\nid: "...)
	t = append(t, tag...)
	t = append(t, '.')
	t = strconv.AppendUint(t, e.n, 10)
	_, err := w.Write(append(t, "\n\n"...))
	return err
}
