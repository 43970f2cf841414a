package release

import (
	"bytes"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator/goapi"
	"github.com/acpgen/acpgen/generator/schemadiff"
)

func TestParse(t *testing.T) {
	for tag, want := range map[string]struct {
		v           Version
		release, ok bool
	}{
		"v0.3.0":                    {Version{0, 3, 0}, true, true},
		"v1.12.7":                   {Version{1, 12, 7}, true, true},
		"v2.0.0+build.5":            {Version{2, 0, 0}, true, true},
		"v1.3.0-rc.1":               {Version{1, 3, 0}, false, true},
		"v1.3.0-0.2020.abc":         {Version{1, 3, 0}, false, true},
		"1.2.3":                     {},
		"v1.2":                      {},
		"v01.2.3":                   {},
		"v1.2.3-01":                 {},
		"v1.2.3-":                   {},
		"vX.Y.Z":                    {},
		"v1.2.3.4":                  {},
		"v99999999999999999999.0.0": {},
	} {
		v, release, ok := Parse(tag)
		if v != want.v || release != want.release || ok != want.ok {
			t.Errorf("Parse(%q) = %v, %v, %v; want %v, %v, %v", tag, v, release, ok, want.v, want.release, want.ok)
		}
	}
}

func TestLatest(t *testing.T) {
	for _, c := range []struct {
		tags []string
		want Version
		ok   bool
	}{
		{nil, Version{}, false},
		{[]string{"", "latest", "version-1", "v1"}, Version{}, false},
		{[]string{"v0.3.0"}, Version{0, 3, 0}, true},
		// Numeric, not lexical, order; pre-releases do not count.
		{[]string{"v0.9.0", "v0.10.0", "v0.2.0", "v0.11.0-rc.1"}, Version{0, 10, 0}, true},
		{[]string{"v1.2.3\n", "v1.10.0", "v1.9.9", "v2.0.0-beta"}, Version{1, 10, 0}, true},
		{[]string{"v3.0.0+meta", "v2.9.9"}, Version{3, 0, 0}, true},
	} {
		got, ok := Latest(c.tags)
		if got != c.want || ok != c.ok {
			t.Errorf("Latest(%q) = %v, %v; want %v, %v", c.tags, got, ok, c.want, c.ok)
		}
	}
}

func TestPropose(t *testing.T) {
	for _, c := range []struct {
		base  Version
		level goapi.Level
		next  Version
		major bool
	}{
		// No tag reads as v0.0.0.
		{Version{}, goapi.Patch, Version{0, 0, 1}, false},
		{Version{}, goapi.Minor, Version{0, 1, 0}, false},
		{Version{}, goapi.Major, Version{0, 1, 0}, false},
		// Before v1, incompatible changes take a minor version.
		{Version{0, 3, 2}, goapi.Patch, Version{0, 3, 3}, false},
		{Version{0, 3, 2}, goapi.Minor, Version{0, 4, 0}, false},
		{Version{0, 3, 2}, goapi.Major, Version{0, 4, 0}, false},
		// From v1 on, each verdict its own increment; major is flagged.
		{Version{1, 4, 2}, goapi.Patch, Version{1, 4, 3}, false},
		{Version{1, 4, 2}, goapi.Minor, Version{1, 5, 0}, false},
		{Version{1, 4, 2}, goapi.Major, Version{2, 0, 0}, true},
		{Version{2, 0, 0}, goapi.Major, Version{3, 0, 0}, true},
	} {
		p := Propose(c.base, c.level)
		if p.Next != c.next || p.Major != c.major || p.Base != c.base || p.Level != c.level || p.Note == "" {
			t.Errorf("Propose(%v, %s) = %+v; want next %v, major %v", c.base, c.level, p, c.next, c.major)
		}
	}
}

func TestMajorPath(t *testing.T) {
	for _, c := range []struct {
		module string
		major  int
		want   string
	}{
		{"example.com/sdk", 2, "example.com/sdk/v2"},
		{"example.com/sdk/v2", 3, "example.com/sdk/v3"},
		{"example.com/sdk/v9", 10, "example.com/sdk/v10"},
		{"example.com/v2tools", 2, "example.com/v2tools/v2"},
		{"github.com/org/acp-go", 2, "github.com/org/acp-go/v2"},
		{"gopkg.in/acp.v1", 2, "gopkg.in/acp.v2"},
	} {
		if got := MajorPath(c.module, c.major); got != c.want {
			t.Errorf("MajorPath(%s, %d) = %s, want %s", c.module, c.major, got, c.want)
		}
	}
}

func sampleEntry() *Entry {
	return &Entry{
		Proposal: Propose(Version{0, 3, 0}, goapi.Minor),
		Package:  "@agentclientprotocol/sdk",
		From:     "2.2.0",
		To:       "2.4.0",
		Schema: &schemadiff.Report{Old: "2.2.0", New: "2.4.0", Channels: []schemadiff.ChannelReport{
			{Name: "stable", File: "schema.json", Note: "only in 2.4.0 (2.2.0 has no schema.json): not compared"},
			{Name: "unstable", File: "schema.unstable.json", Changes: []schemadiff.Change{
				{Category: "method", Op: "added", Subject: "session/archive (request)", Detail: "handled by agent", Class: schemadiff.Additive,
					Go: "MethodSessionArchive", GoDetail: "handled by agent"},
				{Category: "field", Op: "added", Subject: "NewSessionRequest.mcpServers", Detail: "optional []McpServer", Class: schemadiff.Additive,
					Go: "NewSessionRequest.MCPServers", GoDetail: "optional []*MCPServer"},
				{Category: "decoding", Op: "changed", Subject: "SessionInfo.title", Class: schemadiff.Additive, Go: "SessionInfo.Title"},
				{Category: "type", Op: "changed", Subject: "SessionId", Detail: "description text", Class: schemadiff.Docs, Go: "SessionID"},
			}},
		}},
		API: &goapi.Report{Old: "2.2.0", New: "2.4.0", Channels: []goapi.ChannelReport{
			{Name: "stable", Package: "example.com/sdk/acp", Note: "schema.json is not in both revisions: not compared"},
			{Name: "unstable", Package: "example.com/sdk/acp/unstable", Compatible: []string{"MethodSessionArchive: added"}},
		}},
		Module: "example.com/sdk",
	}
}

func TestEntryMarkdown(t *testing.T) {
	got := string(sampleEntry().Markdown())
	want := "## v0.4.0 — @agentclientprotocol/sdk 2.2.0 → 2.4.0\n" +
		"\n" +
		"Go API: **minor** (compatible Go API additions: minor). Previous release: v0.3.0.\n" +
		"\n" +
		"### stable (`example.com/sdk/acp`)\n" +
		"\n" +
		"Not compared: only in 2.4.0 (2.2.0 has no schema.json).\n" +
		"\n" +
		"### unstable (`example.com/sdk/acp/unstable`)\n" +
		"\n" +
		"Go API: 0 incompatible, 1 compatible changes.\n" +
		"\n" +
		"#### Additive (3)\n" +
		"\n" +
		"- Added method `MethodSessionArchive` (`session/archive` request): handled by agent\n" +
		"- Added field `NewSessionRequest.MCPServers`: optional \\[\\]\\*MCPServer\n" +
		"- More lenient decoding of 1 members: `SessionInfo.Title`\n" +
		"\n" +
		"#### Docs (1)\n" +
		"\n" +
		"Description text changed: `SessionID`.\n"
	if got != want {
		t.Errorf("entry:\n%s\nwant:\n%s", got, want)
	}
	if again := string(sampleEntry().Markdown()); again != got {
		t.Error("rendering the same entry twice gave different bytes")
	}
}

func TestEntryMajor(t *testing.T) {
	e := sampleEntry()
	e.Proposal = Propose(Version{1, 2, 0}, goapi.Major)
	e.NewModule = MajorPath(e.Module, e.Proposal.Next.Major)
	e.API.Channels[1].Incompatible = []string{"SessionInfo.Title: changed from *string to string"}
	got := string(e.Markdown())
	for _, want := range []string{
		"## v2.0.0 — @agentclientprotocol/sdk 2.2.0 → 2.4.0\n",
		"Go API: **major** (incompatible Go API changes: major). Previous release: v1.2.0.\n",
		"\nThe module path changes from `example.com/sdk` to `example.com/sdk/v2`.\n",
		"Go API: 1 incompatible, 1 compatible changes.\n\n#### Incompatible Go API changes\n\n- `SessionInfo.Title`: changed from \\*string to string\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("entry lacks %q:\n%s", want, got)
		}
	}
}

func TestPrepend(t *testing.T) {
	entry := []byte("## v0.4.0 — pkg 1 → 2\n\nbody\n")
	v := Version{0, 4, 0}
	old := "# Changelog\n\nAll notable changes.\n\n## v0.3.0 — pkg 0 → 1\n\nold body\n\n## v0.2.0\n\nolder\n"
	for _, c := range []struct{ name, existing, want string }{
		{"missing", "", "# Changelog\n\n## v0.4.0 — pkg 1 → 2\n\nbody\n"},
		{"blank", "\n\n", "# Changelog\n\n## v0.4.0 — pkg 1 → 2\n\nbody\n"},
		{"entries kept below", old,
			"# Changelog\n\nAll notable changes.\n\n## v0.4.0 — pkg 1 → 2\n\nbody\n\n## v0.3.0 — pkg 0 → 1\n\nold body\n\n## v0.2.0\n\nolder\n"},
		{"title only", "# Changes\n\nIntro.\n", "# Changes\n\nIntro.\n\n## v0.4.0 — pkg 1 → 2\n\nbody\n"},
		{"heading right below the title", "# Changes\n## v0.3.0\nx\n", "# Changes\n\n## v0.4.0 — pkg 1 → 2\n\nbody\n\n## v0.3.0\nx\n"},
		{"no title", "## v0.3.0\nx\n", "## v0.4.0 — pkg 1 → 2\n\nbody\n\n## v0.3.0\nx\n"},
	} {
		got, err := Prepend([]byte(c.existing), entry, v)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("%s:\n%q\nwant\n%q", c.name, got, c.want)
		}
		// The earlier content is kept byte for byte after the entry.
		if rest := strings.TrimPrefix(c.existing, "# Changelog\n\nAll notable changes.\n\n"); c.name == "entries kept below" && !bytes.HasSuffix(got, []byte(rest)) {
			t.Errorf("%s: earlier entries changed", c.name)
		}
	}
	if _, err := Prepend([]byte(old), []byte("## v0.3.0 — again\n"), Version{0, 3, 0}); err == nil || !strings.Contains(err.Error(), "already has an entry for v0.3.0 (line 5)") {
		t.Errorf("a second entry for v0.3.0: %v", err)
	}
	// "v0.3.0" in a later word of a heading is no entry for it.
	if _, err := Prepend([]byte("## v0.2.0 — before v0.3.0\n"), entry, Version{0, 3, 0}); err != nil {
		t.Errorf("%v", err)
	}
}
