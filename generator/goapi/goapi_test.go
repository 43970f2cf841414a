package goapi

import "testing"

func TestLevel(t *testing.T) {
	for _, c := range []struct {
		chans []ChannelReport
		want  Level
	}{
		{nil, Patch},
		{[]ChannelReport{{Provenance: []string{"SchemaVersion: value changed"}}}, Patch},
		{[]ChannelReport{{}, {Compatible: []string{"Foo: added"}}}, Minor},
		{[]ChannelReport{{Compatible: []string{"Foo: added"}}, {Incompatible: []string{"Bar: removed"}}}, Major},
	} {
		if got := (&Report{Channels: c.chans}).Level(); got != c.want {
			t.Errorf("%+v: %s, want %s", c.chans, got, c.want)
		}
	}
}

func TestProvenanceMessages(t *testing.T) {
	for msg, want := range map[string]bool{
		`SchemaVersion: value changed from "2.2.0" to "2.4.0"`: true,
		`./acp.SchemaSHA256: value changed from "a" to "b"`:    true,
		`SchemaVersionX: removed`:                              false,
		`SessionInfo.Archived: added`:                          false,
	} {
		if provenance.MatchString(msg) != want {
			t.Errorf("%q: provenance %v, want %v", msg, !want, want)
		}
	}
}
