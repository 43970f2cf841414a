package acp_test

// Hand-written tests of the RFD overlays the repository's stable package
// carries: the corpus's overlay members decode as known fields, and the
// RFDs' rules override upstream's leniency.

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/internal/corpus"
	"github.com/acpgen/acpgen/internal/pinned"
	"github.com/acpgen/acpgen/runtime/wire"
)

func corpusPayload(t *testing.T, channel, name string) []byte {
	t.Helper()
	msgs, err := corpus.LoadMessages(filepath.Join(pinned.Root(t), "testdata", "corpus", channel))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if filepath.Base(m.File) == name {
			return m.Payload
		}
	}
	t.Fatalf("no corpus file %s", name)
	return nil
}

func TestOverlayMembersAreKnown(t *testing.T) {
	var init acp.InitializeResponse
	roundTrip(t, string(corpusPayload(t, "stable", "070-overlay-initialize-response-runtime-context.json")), &init, wire.Strict)
	sc := init.AgentCapabilities.SessionCapabilities
	if sc.RuntimeContext == nil || sc.AdditionalDirectories == nil || len(sc.Unknown) != 0 {
		t.Errorf("capabilities: %+v", sc)
	}
	var list acp.ListSessionsRequest
	roundTrip(t, string(corpusPayload(t, "stable", "071-overlay-session-list-filter.json")), &list, wire.Strict)
	if len(list.AdditionalDirectories) != 2 || len(list.Unknown) != 0 {
		t.Errorf("session/list filter: %+v", list)
	}
	var p acp.PromptRequest
	roundTrip(t, string(corpusPayload(t, "stable", "072-overlay-session-prompt-runtime-context.json")), &p, wire.Strict)
	if len(p.RuntimeContext) != 2 || len(p.Unknown) != 0 {
		t.Errorf("runtimeContext: %+v", p)
	}
	if h := p.ForHistory(); h.RuntimeContext != nil || strings.Contains(string(encode(&h)), "runtimeContext") {
		t.Error("history keeps runtimeContext")
	}
	for _, v := range []interface{ Validate() error }{&init, &list, &p} {
		if err := v.Validate(); err != nil {
			t.Errorf("%T: %v", v, err)
		}
	}
}

func TestCarriesTheRFDs(t *testing.T) {
	var ids []string
	for _, o := range acp.Overlays {
		ids = append(ids, o.ID)
	}
	if strings.Join(ids, ",") != "additional-directories,runtime-context,resumable-transport" {
		t.Errorf("Overlays = %v", ids)
	}
}

// Upstream's hints would drop the invalid entry or the null; the RFD rejects
// them with an error naming the entry.
func TestAdditionalDirectoriesRejectNotDrop(t *testing.T) {
	for in, want := range map[string]string{
		`{"sessionId":"s","cwd":"/w","additionalDirectories":["/a",7]}`:              "/additionalDirectories/1",
		`{"sessionId":"s","cwd":"/w","additionalDirectories":["relative"]}`:          "/additionalDirectories/0: must be an absolute path",
		`{"sessionId":"s","cwd":"relative"}`:                                         "/cwd: must be an absolute path",
		`{"sessionId":"s","cwd":"/w","additionalDirectories":[""]}`:                  "/additionalDirectories/0: must be at least 1 character long",
		`{"sessionId":"s","cwd":"C:\\w","additionalDirectories":["\\\\srv\\share"]}`: "",
	} {
		var s acp.SessionInfo
		err := decode([]byte(in), &s, wire.Lenient)
		if err == nil {
			err = s.Validate()
		}
		if want == "" {
			if err != nil {
				t.Errorf("%s: %v", in, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
	var n acp.NewSessionRequest
	if err := decode([]byte(`{"cwd":"/w","additionalDirectories":null,"mcpServers":[]}`), &n, wire.Lenient); err == nil {
		t.Error("null additionalDirectories accepted")
	}
}
