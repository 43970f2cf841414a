package inspect

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

var fastSeeds = []string{
	`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"a","sessionid":"b"}}`,
	`{"params":{"SESSIONID":"x","update":{"SessionUpdate":"plan"}}}`,
	`{"params":{"sessionId":1,"update":"plan"}}`,
	`{"params":{"sessionId":"a","sessionId":"b","update":{"sessionUpdate":"a","sessionUpdate":2}}}`,
	`{"jsonrpc":"1.0","jsonrpc":"2.0","id":1,"id":null,"method":"x","Method":"y"}`,
	`{"a":1,"a":2}`, `[1]`, `{"params":{"update":{"sessionUpdate":"\u0070lan"}}}`, "{\"params\":{\"sessionId\":\"\xff\"}}",
	`{"params":{"ſessionId":"k"}}`, `{"params":[]}`, `{"params":null}`,
	`{"method":"a\u0062"}`, `{"method":"\u00e9"}`, "{\"method\":\"\xff\"}", `{"method":1}`, `{"method":"é"}`,
	`{"params":{"sessionId":"a","Update":{}}}`, `{"params":{"sessionId":"a","update":{"sessionUpdate":"p","sessionupdate":"q"}}}`,
	`{"params":{"update":{"sessionUpdate":"p"},"update":{}}}`, `{"params":{"update":[{"sessionUpdate":"p"}]}}`, `{"params":{"update":{"sessionUpdate":null}},"params":{"sessionId":"z"}}`,
	`{"params":{"sessionId":"s","update":{"x":{"sessionUpdate":"no"},"sessionUpdate":"\u0070"}}}`, `{"params" : { "sessionId" : "s" , "update" : { "sessionUpdate" : "k" } } }`,
	"{\"a\xff\":1}", "{\"params\":{\"x\":[\"\xc3\"]}}", "{\"a\":1}\xff", "{\xa0\"a\":1}", "{\"a\":\"\xed\xa0\x80\"}",
}

// agreesFast checks the scanner readers against encoding/json's on one frame.
func agreesFast(t *testing.T, frame []byte) {
	t.Helper()
	want, werr := envelopeJSON(frame)
	got, ok := envelopeOf(frame)
	if ok && (werr != nil || !reflect.DeepEqual(got, want)) {
		t.Fatalf("%q: envelopeOf %+v, encoding/json %+v (%v)", frame, got, want, werr)
	}
	if ok && !utf8.Valid(frame) { // Observe skips its UTF-8 check for what envelopeOf reads
		t.Fatalf("%q: envelopeOf reads a frame that is not valid UTF-8", frame)
	}
	if e, p, ok := readEnvelope(frame); ok {
		s, k := sessionAndKind(e.Params)
		if gs, gk := p.sessionAndKind(e.Params); gs != s || gk != k {
			t.Fatalf("%q: read with the envelope, session and kind %q %q; sessionAndKind %q %q", frame, gs, gk, s, k)
		}
		if gs, s := p.sessionIn(e.Params), sessionIn(e.Params); gs != s {
			t.Fatalf("%q: read with the envelope, session %q; sessionIn %q", frame, gs, s)
		}
	}
	var all map[string]json.RawMessage
	if json.Unmarshal(frame, &all) != nil {
		return
	}
	for _, raw := range all {
		var ws string
		werr := json.Unmarshal(raw, &ws)
		if gs, ok := stringValue(raw); ok != (werr == nil) || gs != ws {
			t.Fatalf("%q: stringValue %q %v, encoding/json %q %v", raw, gs, ok, ws, werr)
		}
		if !json.Valid(raw) {
			continue
		}
		if a, b := sessionIn(raw), sessionInJSON(raw); a != b {
			t.Fatalf("%q: sessionIn %q, encoding/json %q", raw, a, b)
		}
		if a, b := updateKind(raw), updateKindJSON(raw); a != b {
			t.Fatalf("%q: updateKind %q, encoding/json %q", raw, a, b)
		}
		if s, k := sessionAndKind(raw); s != sessionInJSON(raw) || k != updateKindJSON(raw) {
			t.Fatalf("%q: sessionAndKind %q %q, encoding/json %q %q", raw, s, k, sessionInJSON(raw), updateKindJSON(raw))
		}
	}
}

// TestFastParseAgrees: the scanner readers read frames as encoding/json does.
func TestFastParseAgrees(t *testing.T) {
	for _, s := range fastSeeds {
		agreesFast(t, []byte(s))
	}
}

// What the checker keeps of a frame, or returns, does not alias the
// caller's buffer, which the relay reuses.
func TestObserveKeepsNoAlias(t *testing.T) {
	c := NewChecker(testProfiles(t))
	init := []byte(`{"jsonrpc":"2.0","id":"i1","method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	m := c.Observe(ToAgent, init)
	kept := string(c.clientInit)
	copy(init, bytes.Repeat([]byte(" "), len(init)))
	if string(m.ID) != `"i1"` || string(c.clientInit) != kept {
		t.Errorf("kept values alias the frame: id %q, client init %q", m.ID, c.clientInit)
	}
	res := []byte(`{"jsonrpc":"2.0","id":"i1","result":{"protocolVersion":1,"agentCapabilities":{}}}`)
	c.Observe(ToClient, res)
	kept = string(c.agentInit)
	copy(res, bytes.Repeat([]byte(" "), len(res)))
	if string(c.agentInit) != kept || kept == "" {
		t.Errorf("the agent's initialize result aliases the frame: %q", c.agentInit)
	}
}

func FuzzFastParse(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(agreesFast)
}
