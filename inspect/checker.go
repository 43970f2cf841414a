package inspect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/wire"
)

// Message is what the checker read of one frame: its kind, the request it
// belongs to, the session it names, and the findings it caused.
type Message struct {
	Kind string `json:"kind"` // request, notification, response, invalid
	// ID is the request's id, or the one a response answers.
	ID json.RawMessage `json:"id,omitempty"`
	// Method is the request's or notification's, or for a response the
	// method of the request it answers.
	Method  string `json:"method,omitempty"`
	Session string `json:"session,omitempty"`
	// Update is a session/update's kind (its sessionUpdate member).
	Update string `json:"update,omitempty"`
	// LatencyMS is, for a response, the time since its request was seen.
	LatencyMS float64   `json:"latencyMs,omitempty"`
	Findings  []Finding `json:"findings,omitempty"`
}

// Checker judges the messages of one session, both directions. It keeps
// what the rules need (outstanding requests, each session's turn state,
// both initialize messages), never the messages themselves, so its memory
// does not grow with the session's length. Safe for concurrent use: each
// message is judged whole before the next.
type Checker struct {
	mu  sync.Mutex
	ver *versions
	// init holds each side's initialize message: the client's params and
	// the agent's result.
	clientInit, agentInit json.RawMessage
	// pending holds the outstanding requests of each direction by id.
	pending map[Direction]*bounded[*request]
	// answered remembers recently answered ids, to tell a second answer
	// from an answer to nothing.
	answered map[Direction]*bounded[bool]
	sessions *bounded[*session]
	mcp      mcpState // MCP over ACP (mcp.go)
	now      func() time.Time
}

// request is an outstanding request.
type request struct {
	method  string
	at      time.Time
	session string
	// unknown is set for a method the receiver does not handle; ext for
	// an extension (_) method.
	unknown, ext bool
	invalid      bool // its params broke the schema
}

// Bounds on what a checker keeps: far above a real session's outstanding
// requests and live sessions, low enough that a flooding peer cannot grow
// the inspector's memory without limit.
const (
	maxAnswered = 1024
	maxSessions = 4096
)

// NewChecker returns a checker whose schemas come from profiles.
func NewChecker(profiles *Profiles) *Checker {
	return &Checker{
		ver: newVersions(profiles),
		pending: map[Direction]*bounded[*request]{
			ToAgent: newBounded[*request](jsonrpc.MaxAwaited), ToClient: newBounded[*request](jsonrpc.MaxAwaited)},
		answered: map[Direction]*bounded[bool]{
			ToAgent: newBounded[bool](maxAnswered), ToClient: newBounded[bool](maxAnswered)},
		sessions: newBounded[*session](maxSessions),
		now:      time.Now,
	}
}

// envelope is a JSON-RPC message's members; a nil RawMessage is absent.
type envelope struct {
	JSONRPC, ID, Method, Params, Result, Error json.RawMessage
}

// Observe judges one line (a frame without its newline) written in dir.
func (c *Checker) Observe(dir Direction, line []byte) Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	line = bytes.TrimSpace(line)
	j := &judgement{dir: dir}
	// A message the scanner reads is valid UTF-8: it validates every
	// string, and a byte outside one that is not ASCII is a syntax error.
	var e envelope
	var params paramsRead
	read := false
	if len(line) > 0 && line[0] != '[' {
		e, params, read = readEnvelope(line)
	}
	if !read && !utf8.Valid(line) {
		j.add(ruleUTF8, "", "invalid UTF-8 in "+quote(line))
	}
	switch {
	case len(line) == 0:
		j.msg.Kind = "invalid"
	case line[0] == '[':
		c.batch(j, line)
	case read:
		c.envelope(j, line, e, &params)
	default:
		c.message(j, line)
	}
	return j.msg
}

// batch judges each message of a JSON-RPC batch.
func (c *Checker) batch(j *judgement, line []byte) {
	var items []json.RawMessage
	if err := json.Unmarshal(line, &items); err != nil || len(items) == 0 {
		j.msg.Kind = "invalid"
		j.add(ruleLines, "", "not a JSON-RPC 2.0 message: "+quote(line))
		return
	}
	for _, it := range items {
		c.message(j, it)
	}
}

// message judges one JSON-RPC message.
func (c *Checker) message(j *judgement, raw []byte) {
	e, ok := envelopeOf(raw)
	if !ok {
		var err error
		if e, err = envelopeJSON(raw); err != nil {
			j.msg.Kind = "invalid"
			j.add(ruleLines, "", "not a JSON-RPC 2.0 message: "+quote(raw))
			return
		}
	}
	c.envelope(j, raw, e, nil)
}

// envelope judges one JSON-RPC message, raw, whose members e holds;
// params, when not nil, is what the scan that read them read of its params.
func (c *Checker) envelope(j *judgement, raw []byte, e envelope, params *paramsRead) {
	e.ID = keepRaw(e.ID)
	if string(e.JSONRPC) != `"2.0"` {
		j.add(ruleLines, "/jsonrpc", `"jsonrpc" is not "2.0"`)
	}
	switch {
	case e.Method != nil:
		c.call(j, e, params)
	case e.ID != nil && (e.Result != nil || e.Error != nil):
		c.response(j, e)
	case e.ID != nil:
		j.msg.Kind = "invalid"
		j.add(ruleResultOrErr, "", "neither result nor error: "+quote(raw))
	case e.Result != nil || e.Error != nil:
		// A response that names no request (JSON-RPC 2.0 §5: the id is
		// required, null when it cannot be known).
		j.msg.Kind = "invalid"
		j.add(ruleIDs, "/id", "a response without an id: "+quote(raw))
	default:
		j.msg.Kind = "invalid"
		j.add(ruleLines, "", "neither a request, a notification nor a response: "+quote(raw))
	}
}

// judgement collects one frame's reading and findings.
type judgement struct {
	dir Direction
	msg Message
}

func (j *judgement) add(r rule, pointer, detail string) {
	j.msg.Findings = append(j.msg.Findings, Finding{Direction: j.dir, Method: j.msg.Method, Rule: r.name,
		Level: r.level, Source: r.source, Pointer: pointer, Detail: detail})
}

// idKey is an id's key for matching a response to its request, as the
// runtime matches them (jsonrpc.IDKey): null "z", an invalid id "".
func idKey(id json.RawMessage) string { return jsonrpc.IDKey(wire.Raw(id)) }

func other(d Direction) Direction {
	if d == ToAgent {
		return ToClient
	}
	return ToAgent
}

// quote shows a frame in a finding: valid UTF-8, at most 120 bytes.
func quote(b []byte) string {
	s := strings.ToValidUTF8(string(b[:min(len(b), 120)]), "\ufffd")
	if len(b) > 120 {
		s += "..."
	}
	return fmt.Sprintf("%q", s)
}
