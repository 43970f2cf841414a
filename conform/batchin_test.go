package conform

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// agentBatchArgs are agents that write each turn's session/updates as batches: v1 the
// broken agent's turn in one array, v2 v2filter's each update in one.
var agentBatchArgs = func(bin, filter, agent string) []struct {
	channel string
	argv    []string
} {
	return []struct {
		channel string
		argv    []string
	}{{"", []string{bin, "-batch-updates"}}, {"v2", []string{filter, "-batch-updates", agent}}}
}

// An agent that writes its session/updates as JSON-RPC batches (JSON-RPC
// 2.0 §6 lets a sender batch notifications) has them followed like single
// lines: its turns are seen (the turn cases count their updates and pass),
// and the run fails no MUST case, on v1 and v2, under subsets and with
// --robustness must too (a batch is valid traffic).
func TestAgentBatchesReachTurns(t *testing.T) {
	bin, agent := buildCmd(t, "./conform/testdata/brokenagent"), buildCmd(t, "./examples/agent")
	filter := buildCmd(t, "./conform/testdata/v2filter")
	for _, run := range agentBatchArgs(bin, filter, agent) {
		for _, o := range []Options{{Categories: noExit}, {Categories: []string{"order", "cancel"}}, {Categories: []string{"cancel"}, Robustness: RobustnessMust}} {
			o.Argv = run.argv
			t.Run(run.channel+" "+strings.Join(o.Categories, ",")+" "+o.Robustness, func(t *testing.T) {
				rep := checkOpts(t, run.channel, o)
				if rep.Failed() {
					t.Errorf("MUST failures: %v", mustFailures(rep))
				}
				want := map[string]string{
					"":   "session/prompt updates name the turn's session",
					"v2": "v2 prompt turn: running, its output, then idle",
				}[run.channel]
				if contains(o.Categories, "cancel") && !contains(o.Categories, "order") {
					want = map[string]string{"": "session/cancel ends the turn", "v2": "v2 session/cancel ends the turn: idle with stopReason cancelled"}[run.channel]
				}
				res := find(rep, want)
				if res == nil || res.Verdict != Pass || strings.HasPrefix(res.Observed, "0 updates") {
					t.Errorf("%s: %+v", want, res)
				}
			})
		}
	}
}

// The agent's requests in a batch are answered by an array with a response
// to each (JSON-RPC 2.0 §6), its notifications by nothing.
func TestAgentBatchRequestsAnswered(t *testing.T) {
	var out bytes.Buffer
	p := &peer{stdin: nopCloser{&out}, onRequest: func(f *frame) (any, *rpcError) { return map[string]any{"m": f.Method}, nil }}
	f := &frame{}
	if err := parseFrame([]byte(`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":"x","method":"b"}]`), f); err != nil {
		t.Fatal(err)
	}
	p.answer(f)
	var replies []struct {
		ID     json.RawMessage   `json:"id"`
		Result map[string]string `json:"result"`
	}
	if err := json.Unmarshal(out.Bytes(), &replies); err != nil {
		t.Fatalf("not an array: %q", out.String())
	}
	if len(replies) != 2 || string(replies[0].ID) != "1" || replies[0].Result["m"] != "a" || string(replies[1].ID) != `"x"` || replies[1].Result["m"] != "b" {
		t.Errorf("replies %s", out.String())
	}
}

type nopCloser struct{ *bytes.Buffer }

func (nopCloser) Close() error { return nil }

// A request that times out names the responses that came meanwhile but
// answer no request of the checker's: one without an id (an id-less
// -32700), one with an id the checker never sent; a response to another
// request of the checker's is not named.
func TestTimeoutNamesStrayAnswers(t *testing.T) {
	log := &frameLog{sent: map[string]string{"1#3": "session/new", "1#4": "session/prompt"}}
	var frames []*frame
	for _, line := range []string{
		`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":"2.0","id":9,"result":{}}`,
		`{"jsonrpc":"2.0","id":4,"result":{}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{}}`,
	} {
		f := &frame{Raw: []byte(line)}
		if err := parseFrame([]byte(line), f); err != nil {
			t.Fatal(err)
		}
		frames = append(frames, f)
	}
	c := &proc{peer: &peer{frames: frames}, tag: "1", run: &agentRun{log: log}}
	got := c.strayAnswers(0)
	want := "; meanwhile a response without an id: error -32700 Parse error; a response with id 9, which matches no request: result {}"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
