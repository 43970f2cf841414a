package inspect

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/acpgen/acpgen/conform"
	"github.com/acpgen/acpgen/generator/config"
	"github.com/acpgen/acpgen/runtime/router"
)

// Profiles gives the conform profile (schema, IR, gates) of each protocol
// version a session may negotiate: the chosen channel's, and its
// counterpart of the other version, loaded when a session negotiates it.
type Profiles struct {
	Main *conform.Profile
	// Load returns the profile of another protocol version; nil, nil when
	// this release has no schema of it.
	Load func(version int) (*conform.Profile, error)

	mu    sync.Mutex
	by    map[int]*conform.Profile
	gates map[*conform.Profile]*conform.GateSet
}

// LoadProfiles loads the profile o chooses (as conform does) and loads the
// other version's counterpart channel the same way when it is needed: v2
// for stable, v2-unstable for unstable, and back.
func LoadProfiles(ctx context.Context, o conform.ProfileOptions) (*Profiles, error) {
	main, err := conform.LoadProfile(ctx, o)
	if err != nil {
		return nil, err
	}
	load := func(v int) (*conform.Profile, error) {
		name := counterpart(main.Channel, v)
		if name == "" {
			return nil, nil
		}
		o := o
		o.Channel = name
		return conform.LoadProfile(ctx, o)
	}
	return &Profiles{Main: main, Load: load}, nil
}

// channelNames are the channels whose schemas define a protocol version.
var channelNames = []string{"stable", "unstable", "v2", "v2-unstable"}

// counterpart is the channel of protocol version v that matches channel's
// stability; "" when no channel speaks v.
func counterpart(channel string, v int) string {
	unstable := strings.HasSuffix(channel, "unstable")
	for _, name := range channelNames {
		ch, _ := config.DefaultChannel(name)
		if ch.Protocol == v && strings.HasSuffix(name, "unstable") == unstable {
			return name
		}
	}
	return ""
}

// knownVersions are the protocol versions the channels speak, ascending.
func knownVersions() []int {
	var vs []int
	for _, name := range channelNames {
		ch, _ := config.DefaultChannel(name)
		if !slices.Contains(vs, ch.Protocol) {
			vs = append(vs, ch.Protocol)
		}
	}
	slices.Sort(vs)
	return vs
}

// of returns the profile of version v (nil when there is none) and why
// loading it failed.
func (p *Profiles) of(v int) (*conform.Profile, error) {
	if v == p.Main.Protocol {
		return p.Main, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if prof, ok := p.by[v]; ok {
		return prof, nil
	}
	if p.by == nil {
		p.by = map[int]*conform.Profile{}
	}
	var prof *conform.Profile
	var err error
	if p.Load != nil {
		prof, err = p.Load(v)
	}
	p.by[v] = prof
	return prof, err
}

// gatesOf is prof's resolved gates, resolved and indexed once.
func (p *Profiles) gatesOf(prof *conform.Profile) *conform.GateSet {
	p.mu.Lock()
	defer p.mu.Unlock()
	if g, ok := p.gates[prof]; ok {
		return g
	}
	if p.gates == nil {
		p.gates = map[*conform.Profile]*conform.GateSet{}
	}
	g, _ := prof.Model.ResolveGates(prof.Gates)
	p.gates[prof] = conform.NewGateSet(g)
	return p.gates[prof]
}

// versions follows the protocol version of a session's messages: the
// profile's until initialize, the router's choice for the initialize
// request, and the agent's answer from then on.
type versions struct {
	p       *Profiles
	current int
	noted   map[int]bool
}

func newVersions(p *Profiles) *versions {
	return &versions{p: p, current: p.Main.Protocol, noted: map[int]bool{}}
}

// profile is the current version's profile; nil, after an informational
// finding the first time, when this release has no schema of it.
func (v *versions) profile(j *judgement) *conform.Profile {
	prof, err := v.p.of(v.current)
	if prof != nil {
		return prof
	}
	if !v.noted[v.current] {
		v.noted[v.current] = true
		why := "this release has no schema of it"
		if err != nil {
			why = err.Error()
		}
		j.add(ruleNoSchema, "", fmt.Sprintf("protocolVersion %d negotiated: %s, so the session's messages are not validated", v.current, why))
	}
	return nil
}

// requested sets the version of an initialize request by the router's
// rule: the highest known version at or below the one asked for.
func (v *versions) requested(frame []byte) {
	if got := routedVersion(knownVersions(), frame); got != 0 {
		v.current = got
	}
}

// answered sets the version the agent's initialize result names.
func (v *versions) answered(result json.RawMessage) {
	var r struct {
		ProtocolVersion *int `json:"protocolVersion"`
	}
	if json.Unmarshal(result, &r) == nil && r.ProtocolVersion != nil {
		v.current = *r.ProtocolVersion
	}
}

// routedVersion is the version runtime/router hands an initialize request
// to when it serves versions: 0 when it would refuse the request.
func routedVersion(versions []int, frame []byte) int {
	rt := router.New()
	chosen := 0
	for _, v := range versions {
		rt.Handle(v, func(context.Context, io.Reader, io.Writer) error {
			chosen = v
			return nil
		})
	}
	_ = rt.ServeConn(context.Background(), bytes.NewReader(append(bytes.Clone(frame), '\n')), io.Discard)
	return chosen
}
