package mcptest

import (
	"encoding/json"
	"reflect"
	"testing"
)

// ReportOptions say what CheckReport accepts besides the common checks.
type ReportOptions struct {
	// SlowCancelled judges the report of the cancelled slow call.
	SlowCancelled func(map[string]any) bool
	// LateProgress accepts a progress call whose notification did not
	// reach the caller before the answer. The TypeScript SDK's v2
	// connection hands an inbound notification to its handlers through
	// several awaits, while an answer resolves its request at once: a
	// notification the Go provider wrote before the answer can reach the
	// caller after it, when McpOverAcpCaller has ended the request and
	// drops it. The slow call's cancellation, which waits for its
	// "started" notification, still shows such a notification received.
	LateProgress bool
}

// CheckReport checks the JSON report interop/ts-mcp-agent.mjs streams after
// running its four calls on the server serverID offers (Server): greet's
// text, the progress notification before its answer, the unknown tool's
// inner error as an outcome, and the slow call cancelled.
func CheckReport(t *testing.T, raw []byte, serverID string, o ReportOptions) {
	t.Helper()
	var report struct {
		ServerID string
		Greet    string
		Progress struct {
			Result string
			Notes  []struct {
				Method string
				Params map[string]any
			}
		}
		Unknown map[string]any
		Slow    map[string]any
	}
	if err := json.Unmarshal(raw, &report); err != nil {
		t.Fatalf("report %s: %v", raw, err)
	}
	if report.ServerID != serverID || report.Greet != "hello ada" || report.Progress.Result != "done" {
		t.Errorf("report %+v", report)
	}
	wantNote := map[string]any{"progressToken": "tok-1", "progress": 1.0, "total": 2.0, "message": "half way"}
	if n := report.Progress.Notes; (len(n) != 0 || !o.LateProgress) && (len(n) != 1 || n[0].Method != "notifications/progress" || !reflect.DeepEqual(n[0].Params, wantNote)) {
		t.Errorf("progress notifications %+v, want one with %v", n, wantNote)
	}
	if e, ok := report.Unknown["error"].(map[string]any); !ok || e["code"] != float64(-32602) || len(report.Unknown) != 1 {
		t.Errorf("unknown tool: outcome %v, want the inner error -32602", report.Unknown)
	}
	if !o.SlowCancelled(report.Slow) {
		t.Errorf("slow call: %v, want it cancelled", report.Slow)
	}
}
