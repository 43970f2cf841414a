package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/router"
)

// routerCase is one frame sent to a fresh router, then the end of input.
type routerCase struct {
	Name     string `json:"name"`
	Versions []int  `json:"versions"`
	Frame    string `json:"frame"`
	// Go and TS are the expected verdicts: "routed vN", "error CODE" or
	// "ignored". GoParams and TSParams, when set, are the initialize params
	// the selected implementation must receive (compared as JSON values).
	// docs/transports-and-security.md ("v1 and v2 on one endpoint") explains every difference.
	Go, TS             string `json:"-"`
	GoParams, TSParams string `json:"-"`
}

func initFrame(id, params string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"initialize","params":` + params + `}`
}

const (
	tsV1Defaults = `"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false`
	v2Info       = `"info":{"name":"c","version":"1"}`
)

// routerCases: keep in step with the table in docs/transports-and-security.md.
var routerCases = []routerCase{
	{Name: "v1 initialize", Versions: []int{1, 2}, Frame: initFrame("1", `{"protocolVersion":1}`), Go: "routed v1", TS: "routed v1",
		GoParams: `{"protocolVersion":1}`, TSParams: `{"protocolVersion":1,"clientCapabilities":{` + tsV1Defaults + `,"auth":{"terminal":false}}}`},
	{Name: "v1 initialize, clientInfo invalid", Versions: []int{1, 2}, Frame: initFrame("1", `{"protocolVersion":1,"clientInfo":{"name":5}}`), Go: "routed v1", TS: "routed v1",
		GoParams: `{"protocolVersion":1,"clientInfo":{"name":5}}`},
	{Name: "v2 initialize, unknown member", Versions: []int{1, 2}, Frame: initFrame("1", `{"protocolVersion":2,`+v2Info+`,"x-extra":1}`), Go: "routed v2", TS: "routed v2",
		GoParams: `{"protocolVersion":2,` + v2Info + `,"x-extra":1}`, TSParams: `{"protocolVersion":2,` + v2Info + `,"capabilities":{}}`},
	{Name: "v2 initialize without info", Versions: []int{1, 2}, Frame: initFrame("1", `{"protocolVersion":2}`), Go: "routed v2", TS: "error -32602",
		GoParams: `{"protocolVersion":2}`},
	{Name: "v3 initialize without info", Versions: []int{1, 2}, Frame: initFrame("1", `{"protocolVersion":3}`), Go: "routed v2", TS: "routed v2",
		GoParams: `{"info":{"name":"unknown","version":"unknown"},"protocolVersion":2}`, TSParams: `{"protocolVersion":2,"info":{"name":"unknown","version":"unknown"},"capabilities":{}}`},
	{Name: "v2 initialize to a v1-only router", Versions: []int{1},
		Frame: initFrame("1", `{"protocolVersion":2,`+v2Info+`,"capabilities":{"auth":{"terminal":{}},"elicitation":{"form":{}}},"_meta":{"k":1}}`),
		Go:    "routed v1", TS: "routed v1",
		GoParams: `{"protocolVersion":1,"clientInfo":{"name":"c","version":"1"},"clientCapabilities":{"auth":{"terminal":true},"elicitation":{"form":{}}},"_meta":{"k":1}}`,
		TSParams: `{"protocolVersion":1,"clientInfo":{"name":"c","version":"1"},"clientCapabilities":{` + tsV1Defaults +
			`,"session":{"configOptions":{"boolean":{}}},"plan":{},"auth":{"terminal":true},"elicitation":{"form":{}}},"_meta":{"k":1}}`},
	{Name: "version 0 to a v1-only router", Versions: []int{1}, Frame: initFrame("1", `{"protocolVersion":0}`), Go: "routed v1", TS: "routed v1",
		GoParams: `{"protocolVersion":1}`},
	{Name: "version 0", Versions: []int{1, 2}, Frame: initFrame("1", `{"protocolVersion":0}`), Go: "error -32022", TS: "error -32022"},
	{Name: "version 1 to a v2-only router", Versions: []int{2}, Frame: initFrame("1", `{"protocolVersion":1}`), Go: "error -32022", TS: "error -32022"},
	{Name: "version as a string", Versions: []int{1, 2}, Frame: initFrame("1", `{"protocolVersion":"1"}`), Go: "error -32602", TS: "error -32602"},
	{Name: "params missing", Versions: []int{1, 2}, Frame: `{"jsonrpc":"2.0","id":1,"method":"initialize"}`, Go: "error -32602", TS: "error -32602"},
	{Name: "not JSON", Versions: []int{1, 2}, Frame: `{"jsonrpc":"2.0",`, Go: "error -32700", TS: "error -32700"},
	{Name: "batch", Versions: []int{1, 2}, Frame: `[` + initFrame("1", `{"protocolVersion":1}`) + `]`, Go: "error -32600", TS: "error -32600"},
	{Name: "notification", Versions: []int{1, 2}, Frame: `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}`, Go: "ignored", TS: "ignored"},
	{Name: "response", Versions: []int{1, 2}, Frame: `{"jsonrpc":"2.0","id":1,"result":{}}`, Go: "ignored", TS: "ignored"},
	{Name: "id only", Versions: []int{1, 2}, Frame: `{"jsonrpc":"2.0","id":1}`, Go: "error -32600", TS: "ignored"},
	{Name: "request before initialize", Versions: []int{1, 2}, Frame: `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{}}`, Go: "error -32600", TS: "error -32600"},
	{Name: "no jsonrpc member", Versions: []int{1, 2}, Frame: `{"id":1,"method":"initialize","params":{"protocolVersion":1}}`, Go: "error -32600", TS: "error -32600"},
	{Name: "id an object", Versions: []int{1, 2}, Frame: initFrame("{}", `{"protocolVersion":1}`), Go: "error -32600", TS: "error -32600"},
	{Name: "v2, id null", Versions: []int{1, 2}, Frame: initFrame("null", `{"protocolVersion":2,`+v2Info+`}`), Go: "error -32600", TS: "error -32600"},
	{Name: "v2, id 1.5", Versions: []int{1, 2}, Frame: initFrame("1.5", `{"protocolVersion":2,`+v2Info+`}`), Go: "error -32600", TS: "error -32600"},
	{Name: "v2, id 1.0", Versions: []int{1, 2}, Frame: initFrame("1.0", `{"protocolVersion":2,`+v2Info+`}`), Go: "error -32600", TS: "routed v2"},
}

type routerResult struct {
	Name    string          `json:"name"`
	Verdict string          `json:"verdict"`
	Params  json.RawMessage `json:"params"`
}

// TestRouterAgainstTypeScript feeds the same frames to runtime/router and to
// the TypeScript SDK's AgentProtocolRouter and checks both against the table.
func TestRouterAgainstTypeScript(t *testing.T) {
	requireSDK(t)
	file := filepath.Join(t.TempDir(), "cases.json")
	data, _ := json.Marshal(routerCases)
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "node", "ts-router.mjs", file)
	if err != nil {
		t.Fatalf("ts-router.mjs: %v", err)
	}
	var tsResults []routerResult
	if err := json.Unmarshal([]byte(out), &tsResults); err != nil || len(tsResults) != len(routerCases) {
		t.Fatalf("ts-router.mjs printed %d results (%v):\n%s", len(tsResults), err, out)
	}
	for i, c := range routerCases {
		goRes := routeGo(t, c)
		ts := tsResults[i]
		t.Logf("%-36s | Go %-12s %s | TS %-12s %s", c.Name, goRes.Verdict, goRes.Params, ts.Verdict, ts.Params)
		if goRes.Verdict != c.Go {
			t.Errorf("%s: runtime/router %s, want %s", c.Name, goRes.Verdict, c.Go)
		}
		if ts.Verdict != c.TS {
			t.Errorf("%s: TypeScript router %s, want %s", c.Name, ts.Verdict, c.TS)
		}
		if c.GoParams != "" && !sameJSON(goRes.Params, c.GoParams) {
			t.Errorf("%s: runtime/router handed over params %s, want %s", c.Name, goRes.Params, c.GoParams)
		}
		if c.TSParams != "" && !sameJSON(ts.Params, c.TSParams) {
			t.Errorf("%s: TypeScript router handed over params %s, want %s", c.Name, ts.Params, c.TSParams)
		}
	}
}

// routeGo sends one case to a fresh runtime/router with stub implementations.
func routeGo(t *testing.T, c routerCase) routerResult {
	t.Helper()
	rt := router.New()
	var (
		mu     sync.Mutex
		routed int
		first  []byte
	)
	for _, v := range c.Versions {
		rt.Handle(v, func(ctx context.Context, r io.Reader, w io.Writer) error {
			line, err := bufio.NewReader(r).ReadBytes('\n')
			mu.Lock()
			defer mu.Unlock()
			routed, first = v, line
			return err
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var reply bytes.Buffer
	rt.ServeConn(ctx, strings.NewReader(c.Frame+"\n"), &reply)
	mu.Lock()
	defer mu.Unlock()
	res := routerResult{Name: c.Name, Verdict: "ignored"}
	switch {
	case routed != 0:
		var msg struct{ Params json.RawMessage }
		if err := json.Unmarshal(first, &msg); err != nil {
			t.Fatalf("%s: the implementation got %q: %v", c.Name, first, err)
		}
		res.Verdict, res.Params = fmt.Sprintf("routed v%d", routed), msg.Params
	case reply.Len() > 0:
		var msg struct{ Error struct{ Code int } }
		if err := json.Unmarshal(reply.Bytes(), &msg); err != nil {
			t.Fatalf("%s: reply %q: %v", c.Name, reply.Bytes(), err)
		}
		res.Verdict = fmt.Sprintf("error %d", msg.Error.Code)
	}
	return res
}

func sameJSON(got json.RawMessage, want string) bool {
	var a, b any
	return json.Unmarshal(got, &a) == nil && json.Unmarshal([]byte(want), &b) == nil && reflect.DeepEqual(a, b)
}
