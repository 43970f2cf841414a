package conform

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/acpgen/acpgen/generator"
	"github.com/acpgen/acpgen/generator/config"
	"github.com/acpgen/acpgen/generator/facts"
	"github.com/acpgen/acpgen/generator/ir"
	"github.com/acpgen/acpgen/generator/source"
	"github.com/acpgen/acpgen/internal/corpus"
	"github.com/acpgen/acpgen/internal/refschema"
	"github.com/acpgen/acpgen/internal/schemacheck"
)

// Profile is what a peer is checked against: one schema channel with its
// overlays, read at run time, so the checker follows whatever schema the
// configuration pins instead of the package acpgen was built with.
type Profile struct {
	Channel  string // "stable", "unstable", "v2" or "v2-unstable"
	Protocol int
	Source   string // release and file, for the report
	Overlays []facts.OverlayInfo
	Model    *ir.Model
	Gates    []facts.Gate
	// Semantics are the overlays' rules beyond the schema (list filters).
	Semantics facts.Semantics
	// examples holds the generated examples of every def, by def and label.
	examples map[string]map[string][]byte
	ref      *schemacheck.Validator
	versions versionSchemas // other protocol versions' schemas, by need
}

// ProfileOptions choose the profile.
type ProfileOptions struct {
	Config  string // acpgen.json to read; "" finds one in the current folder
	Channel string // "" is stable
	Cache   string // schema cache folder; "" is the default
	Stderr  io.Writer
	// BaseOnly leaves the configured overlays out: the released schema
	// alone, with neither the overlays' rules nor their gates.
	BaseOnly bool
}

// LoadProfile reads the configuration (acpgen.json, else the release this
// acpgen was tested with and no overlays), then loads, merges and builds the
// chosen channel: by default the configured stable channel, else the first
// configured one. A channel the configuration does not list is read from its
// pinned release as it is (no overlays), when the release ships it.
func LoadProfile(ctx context.Context, o ProfileOptions) (*Profile, error) {
	name := o.Channel
	if _, ok := config.DefaultChannel(name); name != "" && !ok {
		return nil, fmt.Errorf("--channel %q: not one of stable, unstable, v2, v2-unstable", name)
	}
	r, err := config.Setup(ctx, o.Config, config.Overrides{Cache: o.Cache}, o.Stderr)
	if errors.Is(err, config.ErrNoConfig) {
		if name == "" {
			name = "stable"
		}
		return defaultProfile(ctx, o, name)
	}
	if err != nil {
		return nil, err
	}
	ch, err := profileChannel(r, name)
	if err != nil {
		return nil, err
	}
	src := ch.SchemaFile
	if r.Lock != nil {
		src = r.Lock.Package + "@" + r.Lock.Version + " " + ch.SchemaFile
	}
	overlays := ch.Overlays
	if o.BaseOnly {
		overlays = nil
	}
	return build(filepath.Join(r.Config.SchemaDir, ch.SchemaFile), overlays, ch.Name, ch.Protocol, src)
}

// profileChannel picks the channel to check against (see LoadProfile).
func profileChannel(r *config.Resolved, name string) (generator.Channel, error) {
	chans := r.Config.Channels
	want := name
	if want == "" {
		want = "stable"
	}
	if i := slices.IndexFunc(chans, func(ch generator.Channel) bool { return ch.Name == want }); i >= 0 {
		return chans[i], nil
	}
	if name == "" && len(chans) > 0 {
		return chans[0], nil
	}
	ch, _ := config.DefaultChannel(want)
	if r.Lock != nil {
		if _, ok := r.Lock.Files[ch.SchemaFile]; !ok {
			return ch, fmt.Errorf("--channel %s: %s does not configure it, and %s@%s ships no %s", want, r.File, r.Lock.Package, r.Lock.Version, ch.SchemaFile)
		}
	} else if _, err := os.Stat(filepath.Join(r.Config.SchemaDir, ch.SchemaFile)); err != nil {
		return ch, fmt.Errorf("--channel %s: %s does not configure it, and %w", want, r.File, err)
	}
	return ch, nil
}

func defaultProfile(ctx context.Context, o ProfileOptions, name string) (*Profile, error) {
	cache, err := source.CacheDir(o.Cache)
	if err != nil {
		return nil, err
	}
	dir, lock, err := source.Fetch(ctx, source.FetchOptions{Cache: cache, Stderr: o.Stderr}, nil, config.TestedVersion)
	if err != nil {
		return nil, err
	}
	ch, _ := config.DefaultChannel(name)
	file := ch.SchemaFile
	return build(filepath.Join(dir, file), nil, name, ch.Protocol, lock.Package+"@"+lock.Version+" "+file)
}

// build merges the overlays into the schema file and derives everything the
// cases need from the result.
func build(file string, overlays []string, channel string, protocol int, src string) (*Profile, error) {
	ld, err := generator.LoadChannel(file, overlays, channel)
	if err != nil {
		return nil, err
	}
	merged, m := ld.Merged, ld.Model
	ref, err := schemacheck.New(merged.Schema)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	exs, err := corpus.Examples(merged.Schema)
	if err != nil {
		return nil, fmt.Errorf("%s: examples: %w", file, err)
	}
	p := &Profile{
		Channel: channel, Protocol: protocol, Source: src, Overlays: merged.Overlays, Semantics: merged.Semantics, Model: m, ref: ref,
		Gates:    append(append([]facts.Gate{}, facts.ForProtocol(protocol)...), ld.Gates...),
		examples: map[string]map[string][]byte{},
	}
	p.versions.dir = filepath.Dir(file)
	for _, ex := range exs {
		if p.examples[ex.Def] == nil {
			p.examples[ex.Def] = map[string][]byte{}
		}
		p.examples[ex.Def][ex.Name] = ex.JSON
	}
	return p, nil
}

// Method returns the method with the given wire name, or nil.
func (p *Profile) Method(wire string) *ir.Method {
	for _, m := range p.Model.Methods {
		if m.Wire == wire {
			return m
		}
	}
	return nil
}

// Violations validates instance against def: the verdict at codec speed,
// the violations as the reference validator words them.
func (p *Profile) Violations(def string, instance []byte) ([]refschema.Violation, error) {
	return p.ref.Violations(def, instance)
}

// example is a def's smallest generated example: "minimal", else the first
// variant's minimal form, else its first example.
func (p *Profile) example(def string) []byte {
	exs := p.examples[def]
	if b, ok := exs["minimal"]; ok {
		return b
	}
	names := make([]string, 0, len(exs))
	for n := range exs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if strings.HasSuffix(n, "/minimal") {
			return exs[n]
		}
	}
	if len(names) > 0 {
		return exs[names[0]]
	}
	return []byte("{}")
}
