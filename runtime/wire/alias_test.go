package wire

import (
	"strings"
	"testing"
)

// aliased decodes like a generated type with aliases: "agentAlias" also
// read as "agent_alias" or "agent", "cwd" (required) as "workspaceDir".
type aliased struct {
	AgentAlias *string
	Cwd        string
	Unknown    Fields
}

var aliasedTable = NewAliases(
	Alias{Name: "agent_alias", Member: "agentAlias"},
	Alias{Name: "agent", Member: "agentAlias"},
	Alias{Name: "workspaceDir", Member: "cwd"},
)

var aliasedMembers = Members{Required: []string{"cwd"}, Aliases: aliasedTable}

func (v *aliased) decodeField(d *Decoder, key []byte) (int, error) {
	switch string(key) {
	case "agentAlias":
		v.AgentAlias = new(string)
		return Optional, AtKey(DecodeString(v.AgentAlias, d), "agentAlias")
	case "cwd":
		return 0, AtKey(DecodeString(&v.Cwd, d), "cwd")
	}
	return NotMember, nil
}

func (v *aliased) DecodeJSON(d *Decoder) error {
	*v = aliased{}
	return DecodeObject(d, &v.Unknown, v.decodeField, &aliasedMembers, nil)
}

func TestAliasesLenient(t *testing.T) {
	for _, c := range []struct{ in, agent, cwd string }{
		{`{"agent_alias":"a","workspaceDir":"/w"}`, "a", "/w"},
		{`{"agent":"b","cwd":"/c"}`, "b", "/c"},
		// The member's own name wins, before or after its alias.
		{`{"agentAlias":"own","agent_alias":"x","cwd":"/c","workspaceDir":"/w"}`, "own", "/c"},
		{`{"agent_alias":"x","agentAlias":"own","workspaceDir":"/w","cwd":"/c"}`, "own", "/c"},
		// An alias listed earlier wins over a later one, in either order.
		{`{"agent":"late","agent_alias":"first","cwd":"/c"}`, "first", "/c"},
		{`{"agent_alias":"first","agent":"late","cwd":"/c"}`, "first", "/c"},
	} {
		var v aliased
		if err := Decode([]byte(c.in), &v, Lenient); err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if v.AgentAlias == nil || *v.AgentAlias != c.agent || v.Cwd != c.cwd || len(v.Unknown) != 0 {
			t.Errorf("%s: agent %v cwd %q unknown %v", c.in, v.AgentAlias, v.Cwd, v.Unknown)
		}
	}
}

func TestAliasesStrict(t *testing.T) {
	var v aliased
	err := Decode([]byte(`{"cwd":"/c","agent_alias":"a"}`), &v, Strict)
	e, ok := err.(*Error)
	if !ok || e.Pointer != "/agent_alias" || !strings.Contains(e.Msg, `"agentAlias"`) {
		t.Fatalf("strict alias: %v", err)
	}
	if err := Decode([]byte(`{"cwd":"/c","agentAlias":"a"}`), &v, Strict); err != nil {
		t.Fatalf("strict own name: %v", err)
	}
}

func TestAliasValueErrorPointsAtAlias(t *testing.T) {
	var v aliased
	err := Decode([]byte(`{"cwd":"/c","agent":7}`), &v, Lenient)
	if e, ok := err.(*Error); !ok || e.Pointer != "/agent" {
		t.Fatalf("got %v", err)
	}
	// A losing alias is skipped, not decoded: its wrong type is no error.
	if err := Decode([]byte(`{"cwd":"/c","agent":7,"agentAlias":"a"}`), &v, Lenient); err != nil || *v.AgentAlias != "a" {
		t.Fatalf("got %v", err)
	}
	if err := Decode([]byte(`{"agent":"a"}`), &v, Lenient); err == nil || !strings.Contains(err.Error(), `missing required member "cwd"`) {
		t.Fatalf("required member through no alias: %v", err)
	}
}

func TestAliasesAllocateNothingMore(t *testing.T) {
	allocs := func(in string) float64 {
		data := []byte(in)
		d := NewDecoder(nil, Lenient)
		var v aliased
		return testing.AllocsPerRun(100, func() {
			d.Reset(data, Lenient)
			if err := v.DecodeJSON(d); err != nil {
				t.Fatal(err)
			}
		})
	}
	own, other := allocs(`{"agentAlias":"a","cwd":"/w"}`), allocs(`{"agent_alias":"a","workspaceDir":"/w"}`)
	if other > own {
		t.Errorf("%v allocations per decode through aliases, %v through the members' own names", other, own)
	}
}
