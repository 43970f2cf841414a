package inspect

import (
	"context"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/acpgen/acpgen/conform"
	"github.com/acpgen/acpgen/internal/pinned"
)

var (
	profilesOnce sync.Once
	profilesVal  *Profiles
	profilesErr  error
)

// testProfiles are the repository's stable profile and its v2 counterpart,
// loaded once per test binary.
func testProfiles(t testing.TB) *Profiles {
	t.Helper()
	root := pinned.Root(t)
	profilesOnce.Do(func() {
		profilesVal, profilesErr = LoadProfiles(context.Background(), conform.ProfileOptions{Config: filepath.Join(root, "acpgen.json")})
	})
	if profilesErr != nil {
		t.Fatal(profilesErr)
	}
	return profilesVal
}

// step is one frame of a scripted session: "> " the client writes it,
// "< " the agent.
type step = string

// observeAll runs a script through a fresh checker and returns every finding.
func observeAll(t *testing.T, script []step) []Finding {
	t.Helper()
	c := NewChecker(testProfiles(t))
	var out []Finding
	for _, s := range script {
		dir := ToAgent
		if strings.HasPrefix(s, "< ") {
			dir = ToClient
		}
		out = append(out, c.Observe(dir, []byte(s[2:])).Findings...)
	}
	return out
}

func rules(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule)
	}
	sort.Strings(out)
	return out
}

// A v1 session that follows every rule, used as the prefix of the defects.
var v1Session = []step{
	`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":false}}}}`,
	`< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true}}}`,
	`> {"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`,
	`< {"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`,
	`> {"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}]}}`,
	`< {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`,
	`< {"jsonrpc":"2.0","id":"r1","method":"fs/read_text_file","params":{"sessionId":"s1","path":"/tmp/a"}}`,
	`> {"jsonrpc":"2.0","id":"r1","result":{"content":"a"}}`,
	`< {"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`,
	`< {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"session_info_update","title":"t"}}}`,
	`> {"jsonrpc":"2.0","id":3,"method":"session/load","params":{"sessionId":"s1","cwd":"/tmp","mcpServers":[]}}`,
	`< {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hi"}}}}`,
	`< {"jsonrpc":"2.0","id":3,"result":{}}`,
	`> {"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"wait"}]}}`,
	`> {"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`,
	`< {"jsonrpc":"2.0","id":4,"result":{"stopReason":"cancelled"}}`,
	`> {"jsonrpc":"2.0","id":5,"method":"_vendor/thing","params":{}}`,
	`< {"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found"}}`,
}

func TestValidSessionHasNoFinding(t *testing.T) {
	// An extension method is the receiver's own: answered with a result too.
	extension := []step{
		`> {"jsonrpc":"2.0","id":6,"method":"_vendor/thing","params":{}}`,
		`< {"jsonrpc":"2.0","id":6,"result":{"ok":true}}`,
	}
	if fs := observeAll(t, append(slices.Clone(v1Session), extension...)); len(fs) > 0 {
		for _, f := range fs {
			t.Error(f)
		}
	}
}

// Each defect appended to (or swapped into) the valid session causes
// exactly the findings of its rules, at conform's levels.
func TestDefectsNameTheirRules(t *testing.T) {
	at := func(i int, s ...step) []step { // the session's first i frames, then s
		return append(slices.Clone(v1Session[:i]), s...)
	}
	cases := []struct {
		name   string
		script []step
		want   []string
		level  conform.Level
	}{
		{"turn output after the response", at(len(v1Session),
			`> {"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}]}}`,
			`< {"jsonrpc":"2.0","id":9,"result":{"stopReason":"end_turn"}}`,
			`< {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"late"}}}}`),
			[]string{ruleTurnOrder.name}, conform.Should},
		{"cancelled turn answered end_turn", at(15, `< {"jsonrpc":"2.0","id":4,"result":{"stopReason":"end_turn"}}`),
			[]string{ruleCancelEnds.name}, conform.Must},
		{"cancelled turn answered with an error", at(15, `< {"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"x"}}`),
			[]string{ruleCancelEnds.name}, conform.Must},
		{"output after the cancelled turn's response", at(16,
			`< {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"late"}}}}`),
			[]string{ruleCancelOrder.name}, conform.Must},
		{"replay after the load response", at(11,
			`< {"jsonrpc":"2.0","id":3,"result":{}}`,
			`< {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"hi"}}}}`),
			[]string{ruleLoadReplay.name}, conform.Must},
		{"answer to no request", at(2, `< {"jsonrpc":"2.0","id":77,"result":{}}`), []string{ruleIDs.name}, conform.Must},
		{"answered twice", at(2, `< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}`), []string{ruleIDs.name}, conform.Must},
		{"unknown method", at(2,
			`> {"jsonrpc":"2.0","id":8,"method":"session/frobnicate","params":{}}`,
			`< {"jsonrpc":"2.0","id":8,"error":{"code":-32603,"message":"Internal error"}}`),
			[]string{ruleUnknownSent.name, ruleUnknownReq.name}, conform.Must},
		{"client method sent to the agent", at(2, `> {"jsonrpc":"2.0","id":8,"method":"fs/read_text_file","params":{"sessionId":"s1","path":"/a"}}`),
			[]string{ruleUnknownSent.name}, conform.Must},
		{"write not granted", at(4, `< {"jsonrpc":"2.0","id":"w","method":"fs/write_text_file","params":{"sessionId":"s1","path":"/tmp/a","content":"x"}}`),
			[]string{ruleGates.name}, conform.Must},
		{"invalid prompt accepted", at(4,
			`> {"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text"}]}}`,
			`< {"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`),
			[]string{ruleSchema.name, ruleParamsCode.name}, conform.Must},
		{"invalid update", at(5, `< {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text"}}}}`),
			[]string{ruleSchema.name}, conform.Must},
		{"not JSON", at(2, `< {"jsonrpc":"2.0",`), []string{ruleLines.name}, conform.Must},
		{"not UTF-8", at(5, "< {\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"sessionId\":\"s1\",\"update\":{\"sessionUpdate\":\"agent_message_chunk\",\"content\":{\"type\":\"text\",\"text\":\"h\xffi\"}}}}"),
			[]string{ruleUTF8.name}, conform.Must},
		{"result and error", at(3, `< {"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"},"error":{"code":1,"message":"x"}}`),
			[]string{ruleResultOrErr.name}, conform.Must},
		{"error without message", at(3, `< {"jsonrpc":"2.0","id":1,"error":{"code":-32000}}`),
			[]string{ruleErrorObjects.name}, conform.Must},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs := observeAll(t, tc.script)
			if got := rules(fs); !slices.Equal(got, tc.want) {
				t.Fatalf("rules %q, want %q\n%v", got, tc.want, fs)
			}
			if !slices.ContainsFunc(fs, func(f Finding) bool { return f.Level == tc.level && f.Source != "" }) {
				t.Errorf("no finding at level %s with a source: %v", tc.level, fs)
			}
		})
	}
}

// The pointer of a schema finding locates the member in the frame.
func TestFindingPointer(t *testing.T) {
	fs := observeAll(t, append(slices.Clone(v1Session[:4]),
		`> {"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text"}]}}`))
	if len(fs) == 0 || !strings.HasPrefix(fs[0].Pointer, "/params/prompt/0") || fs[0].Direction != ToAgent || fs[0].Method != "session/prompt" {
		t.Fatalf("findings %v, want one at /params/prompt/0 of the client's session/prompt", fs)
	}
	line := fs[0].String()
	for _, part := range []string{"client->agent", "session/prompt", "MUST", "[frames: messages valid against the schema]", "/params/prompt/0"} {
		if !strings.Contains(line, part) {
			t.Errorf("stderr line %q lacks %q", line, part)
		}
	}
}
