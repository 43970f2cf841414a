package inspect

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/acpgen/acpgen/conform"
	"github.com/acpgen/acpgen/internal/pinned"
)

var (
	unstableOnce sync.Once
	unstableVal  *Profiles
	unstableErr  error
)

// unstableProfiles are the unstable profile (which has the Proxy Chains
// methods) and its v2 counterpart, loaded once per test binary.
func unstableProfiles(t *testing.T) *Profiles {
	t.Helper()
	unstableOnce.Do(func() {
		unstableVal, unstableErr = LoadProfiles(context.Background(), conform.ProfileOptions{
			Config: filepath.Join(pinned.Root(t), "acpgen.json"), Channel: "unstable"})
	})
	if unstableErr != nil {
		t.Fatal(unstableErr)
	}
	return unstableVal
}

func observeWith(t *testing.T, p *Profiles, script []step) []Finding {
	t.Helper()
	c := NewChecker(p)
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

// A conductor-to-proxy hop, "> " what the conductor sends, "< " the
// proxy: initialized through the proxy, its successor initialized through
// the successor envelope, then a turn's update wrapped going up.
// PROXY_INIT and PROXY_SUCC stand for the dialect's names.
var proxyHop = []step{
	`> {"jsonrpc":"2.0","id":0,"method":"PROXY_INIT","params":{"protocolVersion":1,"clientCapabilities":{}}}`,
	`< {"jsonrpc":"2.0","id":"p1","method":"PROXY_SUCC","params":{"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}}`,
	`> {"jsonrpc":"2.0","id":"p1","result":{"protocolVersion":1,"agentCapabilities":{}}}`,
	`< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{}}}`,
	`> {"jsonrpc":"2.0","method":"PROXY_SUCC","params":{"method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}}`,
}

func inDialect(script []step, init, succ string) []step {
	r := strings.NewReplacer("PROXY_INIT", init, "PROXY_SUCC", succ)
	var out []step
	for _, s := range script {
		out = append(out, r.Replace(s))
	}
	return out
}

// inspect judges the Rust SDK's _proxy/initialize and _proxy/successor as
// the schema's proxy/initialize and proxy/successor: a hop that follows
// the rules draws no finding in either dialect, and the same defects (a
// proxy/initialize without protocolVersion, an envelope without a method)
// draw the same findings, rather than passing as extension methods.
func TestProxyChainNamesJudgedAlike(t *testing.T) {
	p := unstableProfiles(t)
	defects := []step{
		`> {"jsonrpc":"2.0","id":5,"method":"PROXY_INIT","params":{"clientCapabilities":{}}}`,
		`< {"jsonrpc":"2.0","id":"p2","method":"PROXY_SUCC","params":{"params":{}}}`,
	}
	var got [2][]string
	for i, d := range [][2]string{{"proxy/initialize", "proxy/successor"}, {"_proxy/initialize", "_proxy/successor"}} {
		if fs := observeWith(t, p, inDialect(proxyHop, d[0], d[1])); len(fs) != 0 {
			t.Errorf("%s: findings on a good hop: %+v", d[0], fs)
		}
		fs := observeWith(t, p, inDialect(append(slices.Clone(proxyHop), defects...), d[0], d[1]))
		var where []string
		for _, f := range fs {
			where = append(where, f.Rule+" "+f.Pointer)
		}
		if len(fs) < 2 {
			t.Errorf("%s: defects drew %v, want a finding for each", d[0], where)
		}
		got[i] = where
	}
	if !slices.Equal(got[0], got[1]) {
		t.Errorf("the dialects are judged differently: schema %v, rust %v", got[0], got[1])
	}
}
