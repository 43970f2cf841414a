package acpgentest

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/acpgen/acpgen/runtime/jsonpointer"
	"github.com/acpgen/acpgen/runtime/wire"
)

// Capability is one capability path of the table.
type Capability struct {
	// Path is dotted, e.g. "agentCapabilities.promptCapabilities.image", or a
	// JSON pointer when a token holds a dot:
	// "/agentCapabilities/_meta/sandboxagent.dev/extensions/sessionMetadata".
	Path     string
	Bool     bool   // granted by true (else by an empty object)
	List     []byte // granted by this one-item list (JSON), when the capability is a list
	InResult bool   // in initialize's result (the agent's), else its params (the client's)
}

// Negotiation is the initialize params and result, as JSON, to decode into
// the generated package's Negotiated.
type Negotiation struct {
	Request, Response []byte
}

// GateCase is one gate of the table.
type GateCase struct {
	Gate       string // the row, for messages
	Capability string
	Pointer    string // where the violation must point
	// Require marks an inverse rule: the message lacks a member that the
	// capability, once advertised, requires.
	Require bool
	// Check runs the gate check on a generated message that uses the gated
	// thing, under the given negotiation.
	Check func(Negotiation) ([]wire.GateViolation, error)
	// Method is set for method gates: AllowsMethod must agree.
	Method  string
	Allowed func(Negotiation, string) (bool, string, error)
}

// GateTable is a generated package's gates and the capabilities they name.
type GateTable struct {
	// Base is the smallest valid initialize params and result, before any
	// capability is added.
	Base         Negotiation
	Capabilities []Capability
	Cases        []GateCase
}

// negotiate builds initialize messages that advertise every capability except
// the one named (which, with its sub-capabilities, is left out).
func negotiate(base Negotiation, caps []Capability, except string) Negotiation {
	req, resp := map[string]any{}, map[string]any{}
	// Base is generated; a broken one fails the decode of every case.
	_ = json.Unmarshal(base.Request, &req)
	_ = json.Unmarshal(base.Response, &resp)
	skip, _ := jsonpointer.SplitPath(except)
	for _, c := range caps {
		parts, err := jsonpointer.SplitPath(c.Path)
		if err != nil || (except != "" && len(parts) >= len(skip) && slices.Equal(parts[:len(skip)], skip)) {
			continue
		}
		root := req
		if c.InResult {
			root = resp
		}
		m := root
		for _, p := range parts[:len(parts)-1] {
			next, ok := m[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[p] = next
			}
			m = next
		}
		leaf := parts[len(parts)-1]
		if c.List != nil {
			m[leaf] = json.RawMessage(c.List)
		} else if c.Bool {
			m[leaf] = true
		} else if _, ok := m[leaf]; !ok {
			m[leaf] = map[string]any{}
		}
	}
	// A capability that is a parent of another must stay absent when excepted.
	a, _ := json.Marshal(req)
	b, _ := json.Marshal(resp)
	return Negotiation{Request: a, Response: b}
}

// Gates checks every gate both ways: a message using the gated method,
// member, variant or value passes when every capability is advertised, and
// fails naming the capability when all but that one are (inverse rules: the
// other way round).
func Gates(t *testing.T, c GateTable) {
	if len(c.Cases) == 0 {
		t.Fatal("no gates")
	}
	all := negotiate(c.Base, c.Capabilities, "")
	for _, tc := range c.Cases {
		t.Run(tc.Gate, func(t *testing.T) {
			if tc.Require {
				runRequire(t, c, tc, all)
				return
			}
			got, err := tc.Check(all)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range got {
				t.Errorf("positive: violation with every capability advertised: %+v", v)
			}
			got, err = tc.Check(negotiate(c.Base, c.Capabilities, tc.Capability))
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, v := range got {
				if v.Capability == tc.Capability && v.Pointer == tc.Pointer {
					found = true
				}
			}
			if !found {
				t.Errorf("negative: without %s, want a violation at %q; got %+v", tc.Capability, tc.Pointer, got)
			}
			if tc.Allowed != nil {
				if ok, _, err := tc.Allowed(all, tc.Method); err != nil || !ok {
					t.Errorf("AllowsMethod(%s) with every capability = %v, %v", tc.Method, ok, err)
				}
				ok, need, err := tc.Allowed(negotiate(c.Base, c.Capabilities, tc.Capability), tc.Method)
				if err != nil || ok || need != tc.Capability {
					t.Errorf("AllowsMethod(%s) without %s = %v, %q, %v", tc.Method, tc.Capability, ok, need, err)
				}
			}
		})
	}
	t.Logf("%d gates checked, each positive and negative", len(c.Cases))
}

// runRequire checks an inverse rule on a message that lacks the member: a
// violation with the capability advertised, none without it.
func runRequire(t *testing.T, c GateTable, tc GateCase, all Negotiation) {
	got, err := tc.Check(all)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, v := range got {
		if v.Capability == tc.Capability && v.Pointer == tc.Pointer && v.Required {
			found = true
		}
	}
	if !found {
		t.Errorf("negative: with %s advertised, a message lacking %s must be refused; got %+v", tc.Capability, tc.Pointer, got)
	}
	got, err = tc.Check(negotiate(c.Base, c.Capabilities, tc.Capability))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range got {
		if v.Capability == tc.Capability {
			t.Errorf("positive: without %s the member is optional; got %+v", tc.Capability, v)
		}
	}
}
