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

func (v *aliased) decodeField(d *Decoder, key []byte, seen []uint64) (bool, error) {
	switch string(key) {
	case "agentAlias":
		v.AgentAlias = new(string)
		return true, AtKey(DecodeString(v.AgentAlias, d), "agentAlias")
	case "cwd":
		seen[0] |= 1
		return true, AtKey(DecodeString(&v.Cwd, d), "cwd")
	}
	return false, nil
}

func (v *aliased) DecodeJSON(d *Decoder) error {
	*v = aliased{}
	if err := d.BeginObject(); err != nil {
		return err
	}
	var seen [1]uint64
	var hits [2]AliasHit
	for {
		key, ok, err := d.NextKey()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		handled, err := aliasedTable.Take(d, key, hits[:])
		if err == nil && !handled {
			handled, err = v.decodeField(d, key, seen[:])
		}
		if err == nil && !handled {
			err = d.KeepUnknown(key, &v.Unknown)
		}
		if err != nil {
			return err
		}
	}
	if err := aliasedTable.Resolve(d, hits[:], func(member []byte) (bool, error) { return v.decodeField(d, member, seen[:]) }); err != nil {
		return err
	}
	if seen[0]&1 == 0 {
		return d.Errorf("missing required member %q", "cwd")
	}
	return nil
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
