package additionaldirectories_test

// Hand-written behaviour tests of the additionalDirectories overlay (RFD seed
// 000) as generated from golden/testdata/base.json: decoding, encoding,
// validation verdicts and the roots helpers.
//
// The package is not committed: go test ./golden builds it in this folder
// from the generated files and this one, and runs these tests.

import (
	"slices"
	"strings"
	"testing"

	ad "github.com/acpgen/acpgen/golden/testdata/additional-directories"
	"github.com/acpgen/acpgen/internal/corpus"
	"github.com/acpgen/acpgen/runtime/wire"
)

// check decodes in mode and validates; it returns the first error.
func check(data string, v interface {
	Validate() error
}, mode wire.Mode) error {
	if err := decode([]byte(data), v, mode); err != nil {
		return err
	}
	return v.Validate()
}

func TestLifecycleRequestsRoundTrip(t *testing.T) {
	in := `{"sessionId":"s1","cwd":"/workspace/app","additionalDirectories":["/workspace/libs/shared","/workspace/skills"],"mcpServers":[]}`
	for _, v := range []interface {
		Validate() error
	}{&ad.LoadSessionRequest{}, &ad.ResumeSessionRequest{}, &ad.ForkSessionRequest{}} {
		if err := check(in, v, wire.Strict); err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		out := encode(v)
		if eq, diff, err := corpus.Equal([]byte(in), out); err != nil || !eq {
			t.Errorf("%T re-encodes as %s (%s)", v, out, diff)
		}
	}
	var n ad.NewSessionRequest
	if err := check(`{"cwd":"/w","additionalDirectories":[],"mcpServers":[]}`, &n, wire.Strict); err != nil {
		t.Fatal(err)
	}
	// An explicit empty list stays distinguishable from an absent one.
	if n.AdditionalDirectories == nil || string(encode(&n)) != `{"cwd":"/w","additionalDirectories":[],"mcpServers":[]}` {
		t.Errorf("[] lost: %#v", n.AdditionalDirectories)
	}
}

func TestPathRules(t *testing.T) {
	valid := []string{"/", "/workspace/app", `C:\src\app`, "c:/src", `\\server\share\dir`, `\\?\C:\long`, "//server/share"}
	invalid := map[string]string{
		"":          "at least 1 character",
		"relative":  "absolute path",
		"./x":       "absolute path",
		`C:drive`:   "absolute path",
		`\rooted`:   "absolute path",
		"~/home":    "absolute path",
		`\\server`:  "absolute path",
		"workspace": "absolute path",
	}
	for _, p := range valid {
		req := ad.NewSessionRequest{Cwd: p, AdditionalDirectories: []string{p}, MCPServers: []ad.MCPServerStdio{}}
		if err := req.Validate(); err != nil {
			t.Errorf("%q rejected: %v", p, err)
		}
	}
	for p, want := range invalid {
		req := ad.NewSessionRequest{Cwd: "/w", AdditionalDirectories: []string{"/ok", p}, MCPServers: []ad.MCPServerStdio{}}
		err := req.Validate()
		if err == nil || !strings.Contains(err.Error(), "/additionalDirectories/1: must be") || !strings.Contains(err.Error(), want) {
			t.Errorf("entry %q: got %v, want an error at /additionalDirectories/1 saying %q", p, err, want)
		}
		req = ad.NewSessionRequest{Cwd: p, MCPServers: []ad.MCPServerStdio{}}
		if err := req.Validate(); err == nil || !strings.Contains(err.Error(), "/cwd: must be") {
			t.Errorf("cwd %q: got %v", p, err)
		}
	}
}

// Upstream decodes these fields leniently (null as absent, invalid items
// dropped); the RFD rejects them, in both modes, never dropping silently.
func TestNoLeniency(t *testing.T) {
	cases := map[string]struct {
		v interface {
			Validate() error
		}
		json string
		want string
	}{
		"null field":        {&ad.NewSessionRequest{}, `{"cwd":"/w","additionalDirectories":null,"mcpServers":[]}`, "additionalDirectories"},
		"null entry":        {&ad.LoadSessionRequest{}, `{"sessionId":"s","cwd":"/w","additionalDirectories":["/a",null],"mcpServers":[]}`, "additionalDirectories/1"},
		"number entry":      {&ad.ResumeSessionRequest{}, `{"sessionId":"s","cwd":"/w","additionalDirectories":[7]}`, "additionalDirectories/0"},
		"not an array":      {&ad.ForkSessionRequest{}, `{"sessionId":"s","cwd":"/w","additionalDirectories":"/a"}`, "additionalDirectories"},
		"empty entry":       {&ad.NewSessionRequest{}, `{"cwd":"/w","additionalDirectories":[""],"mcpServers":[]}`, "additionalDirectories/0"},
		"relative in list":  {&ad.ListSessionsRequest{}, `{"additionalDirectories":["rel"]}`, "additionalDirectories/0"},
		"item dropped once": {&ad.SessionInfo{}, `{"sessionId":"s","cwd":"/w","additionalDirectories":["/a",1]}`, "additionalDirectories/1"},
		"info relative":     {&ad.SessionInfo{}, `{"sessionId":"s","cwd":"/w","additionalDirectories":["a"]}`, "additionalDirectories/0"},
	}
	for name, c := range cases {
		for _, mode := range []wire.Mode{wire.Strict, wire.Lenient} {
			err := check(c.json, c.v, mode)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s (mode %d): got %v, want an error naming %s", name, mode, err, c.want)
			}
		}
	}
}

func TestCapability(t *testing.T) {
	var r ad.InitializeResponse
	if err := check(`{"protocolVersion":1,"agentCapabilities":{"sessionCapabilities":{"list":{},"additionalDirectories":{}}}}`, &r, wire.Strict); err != nil {
		t.Fatal(err)
	}
	if r.AgentCapabilities.SessionCapabilities.AdditionalDirectories == nil {
		t.Fatal("capability not decoded")
	}
}

func TestRoots(t *testing.T) {
	n := ad.NewSessionRequest{Cwd: "/app", AdditionalDirectories: []string{"/lib", "/skills"}}
	if got := n.EffectiveRoots(); !slices.Equal(got, []string{"/app", "/lib", "/skills"}) {
		t.Errorf("EffectiveRoots = %v", got)
	}
	// load, resume and fork without the field activate no roots: nothing stored comes back.
	for _, got := range [][]string{
		(&ad.LoadSessionRequest{Cwd: "/app"}).ActiveAdditionalDirectories(),
		(&ad.ResumeSessionRequest{Cwd: "/app"}).ActiveAdditionalDirectories(),
		(&ad.ForkSessionRequest{Cwd: "/app"}).ActiveAdditionalDirectories(),
	} {
		if got == nil || len(got) != 0 {
			t.Errorf("omitted list = %#v, want []", got)
		}
	}
	if got := (&ad.LoadSessionRequest{Cwd: "/app"}).EffectiveRoots(); !slices.Equal(got, []string{"/app"}) {
		t.Errorf("EffectiveRoots without the list = %v", got)
	}
	// Client-side cleaning: first occurrence wins, cwd is dropped, nested roots stay.
	d := ad.ResumeSessionRequest{Cwd: "/app", AdditionalDirectories: []string{"/b", "/app", "/a", "/b", "/app/sub", "/a"}}
	d.DedupeAdditionalDirectories()
	if !slices.Equal(d.AdditionalDirectories, []string{"/b", "/a", "/app/sub"}) {
		t.Errorf("Dedupe = %v", d.AdditionalDirectories)
	}
	if got := ad.DedupeRoots("/app", []string{"/app"}); got == nil || len(got) != 0 {
		t.Errorf("DedupeRoots to nothing = %#v, want []", got)
	}
	var absent ad.NewSessionRequest
	absent.DedupeAdditionalDirectories()
	if absent.AdditionalDirectories != nil {
		t.Error("dedupe turned an absent list into a present one")
	}
}

func TestListFilter(t *testing.T) {
	sessions := []ad.SessionInfo{
		{SessionID: "none-omitted", Cwd: "/app"},
		{SessionID: "none-empty", Cwd: "/app", AdditionalDirectories: []string{}},
		{SessionID: "ab", Cwd: "/app", AdditionalDirectories: []string{"/a", "/b"}},
		{SessionID: "ba", Cwd: "/app", AdditionalDirectories: []string{"/b", "/a"}},
		{SessionID: "ab-other", Cwd: "/other", AdditionalDirectories: []string{"/a", "/b"}},
	}
	list := func(req ad.ListSessionsRequest) []string {
		var out []string
		for i := range sessions {
			if req.Matches(&sessions[i]) {
				out = append(out, string(sessions[i].SessionID))
			}
		}
		return out
	}
	cwd := "/app"
	for _, c := range []struct {
		name string
		req  ad.ListSessionsRequest
		want []string
	}{
		{"no filter", ad.ListSessionsRequest{}, []string{"none-omitted", "none-empty", "ab", "ba", "ab-other"}},
		{"cwd only", ad.ListSessionsRequest{Cwd: &cwd}, []string{"none-omitted", "none-empty", "ab", "ba"}},
		{"exact ordered match", ad.ListSessionsRequest{AdditionalDirectories: []string{"/a", "/b"}}, []string{"ab", "ab-other"}},
		{"both filters apply", ad.ListSessionsRequest{Cwd: &cwd, AdditionalDirectories: []string{"/a", "/b"}}, []string{"ab"}},
		{"empty filter matches only []", ad.ListSessionsRequest{AdditionalDirectories: []string{}}, []string{"none-omitted", "none-empty"}},
	} {
		if got := list(c.req); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestSessionInfoEncodesEmptyList(t *testing.T) {
	// An agent advertising the capability sends [] for a session without
	// additional roots: the field must survive encoding as [].
	s := ad.SessionInfo{SessionID: "s", Cwd: "/app", AdditionalDirectories: []string{}}
	if got := string(encode(&s)); got != `{"sessionId":"s","cwd":"/app","additionalDirectories":[]}` {
		t.Errorf("encoded %s", got)
	}
}

func TestProvenance(t *testing.T) {
	if len(ad.Overlays) != 1 || ad.Overlays[0].ID != "additional-directories" || !strings.HasPrefix(ad.Overlays[0].URL, "https://") {
		t.Errorf("Overlays = %+v", ad.Overlays)
	}
}

// The overlay's typed gates reach the generated capability checks.
func TestGates(t *testing.T) {
	without := ad.Negotiated{Response: &ad.InitializeResponse{AgentCapabilities: &ad.AgentCapabilities{SessionCapabilities: &ad.SessionCapabilities{
		List: &ad.SessionListCapabilities{}, Fork: &ad.SessionForkCapabilities{}}}}}
	with := ad.Negotiated{Response: &ad.InitializeResponse{AgentCapabilities: &ad.AgentCapabilities{SessionCapabilities: &ad.SessionCapabilities{
		List: &ad.SessionListCapabilities{}, Fork: &ad.SessionForkCapabilities{}, AdditionalDirectories: &ad.SessionAdditionalDirectoriesCapabilities{}}}}}
	const capability = "agentCapabilities.sessionCapabilities.additionalDirectories"

	for method, params := range map[string]any{
		ad.MethodSessionNew:  &ad.NewSessionRequest{Cwd: "/w", AdditionalDirectories: []string{"/a"}},
		ad.MethodSessionFork: &ad.ForkSessionRequest{SessionID: "s", Cwd: "/w", AdditionalDirectories: []string{}},
		ad.MethodSessionList: &ad.ListSessionsRequest{AdditionalDirectories: []string{"/a"}},
	} {
		v := without.CheckParams(method, params)
		if len(v) != 1 || v[0].Pointer != "/additionalDirectories" || v[0].Capability != capability {
			t.Errorf("%s without the capability: %+v", method, v)
		}
		if v := with.CheckParams(method, params); len(v) != 0 {
			t.Errorf("%s with the capability: %+v", method, v)
		}
	}

	// Once advertised, every listed session carries its list, [] when empty.
	res := &ad.ListSessionsResponse{Sessions: []ad.SessionInfo{{SessionID: "a", Cwd: "/w", AdditionalDirectories: []string{}}, {SessionID: "b", Cwd: "/w"}}}
	v := with.CheckResult(ad.MethodSessionList, res)
	if len(v) != 1 || v[0].Pointer != "/sessions/1/additionalDirectories" || !v[0].Required {
		t.Errorf("session/list result: %+v", v)
	}
	if v := without.CheckResult(ad.MethodSessionList, res); len(v) != 0 {
		t.Errorf("session/list result without the capability: %+v", v)
	}
}

// decode decodes data into the generated value v points to, through its table.
func decode(data []byte, v any, mode wire.Mode) error {
	return wire.DecodeWith(data, v, ad.TableOf(v), mode)
}

// encode is the JSON encoding of the generated value v points to.
func encode(v any) []byte { return ad.TableOf(v).AppendValue(nil, v) }
