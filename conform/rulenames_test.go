package conform_test

import (
	"context"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/acpgen/acpgen/conform"
	"github.com/acpgen/acpgen/inspect"
	"github.com/acpgen/acpgen/internal/pinned"
)

// The same frames, judged by conform's frame log (as an agent's lines
// answering the checker's requests) and by acpgen inspect (as the agent's
// side of a session whose client sent those requests), fail the same rules
// under the same names: both read conform's one table of rule names.
func TestInspectAndConformNameDefectsAlike(t *testing.T) {
	root := pinned.Root(t)
	opts := conform.ProfileOptions{Config: filepath.Join(root, "acpgen.json")}
	p, err := conform.LoadProfile(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	profiles, err := inspect.LoadProfiles(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	const (
		initReq   = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`
		initResp  = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}`
		newReq    = `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`
		promptReq = `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}]}}`
	)
	sent := [][2]string{{"0", "initialize"}, {"1", "session/new"}, {"2", "session/prompt"}}
	requests := []string{initReq, newReq, promptReq}
	for _, c := range []struct {
		name  string
		lines []string
	}{
		{"valid", []string{initResp, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`}},
		{"response without an id", []string{initResp, `{"jsonrpc":"2.0","result":{"sessionId":"s1"}}`}},
		{"string id", []string{`{"jsonrpc":"2.0","id":"0","result":{"protocolVersion":1}}`}},
		{"id of no request", []string{initResp, `{"jsonrpc":"2.0","id":7,"result":{"sessionId":"s1"}}`}},
		{"answered twice", []string{initResp, initResp}},
		{"result and error", []string{`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1},"error":{"code":1,"message":"x"}}`}},
		{"neither result nor error", []string{`{"jsonrpc":"2.0","id":0}`}},
		{"error without message", []string{`{"jsonrpc":"2.0","id":0,"error":{"code":-32603}}`}},
		{"not JSON", []string{`{"jsonrpc":"2.0",`}},
		{"jsonrpc 1.0", []string{`{"jsonrpc":"1.0","id":0,"result":{"protocolVersion":1}}`}},
		{"invalid UTF-8", []string{initResp, "{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"sessionId\":\"s1\",\"update\":{\"sessionUpdate\":\"agent_message_chunk\",\"content\":{\"type\":\"text\",\"text\":\"h\xffi\"}}}}"}},
		{"unknown notification", []string{initResp, `{"jsonrpc":"2.0","method":"vendor/note","params":{}}`}},
		{"text block without text", []string{initResp, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`,
			`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text"}}}}`}},
		{"invalid result", []string{`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"one"}}`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fromConform := conform.FailedFrameRules(p, sent, c.lines)
			chk := inspect.NewChecker(profiles)
			for _, r := range requests {
				chk.Observe(inspect.ToAgent, []byte(r))
			}
			var fromInspect []string
			for _, l := range c.lines {
				for _, f := range chk.Observe(inspect.ToClient, []byte(l)).Findings {
					if f.Level == conform.Must && !slices.Contains(fromInspect, f.Rule) {
						fromInspect = append(fromInspect, f.Rule)
					}
				}
			}
			sort.Strings(fromInspect)
			if !slices.Equal(fromConform, fromInspect) {
				t.Errorf("conform %q, inspect %q", fromConform, fromInspect)
			}
			if c.name != "valid" && len(fromConform) == 0 {
				t.Errorf("conform found no defect")
			}
		})
	}
}
