// Package generator ties acpgen's stages together: load a schema channel,
// build its IR, emit Go. Generation is a pure function from inputs to a map of
// file paths to bytes; writing and checking are consumers of that map.
package generator

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/acpgen/acpgen/generator/emit"
	"github.com/acpgen/acpgen/generator/facts"
	"github.com/acpgen/acpgen/generator/ir"
	"github.com/acpgen/acpgen/generator/meta"
	"github.com/acpgen/acpgen/generator/overlay"
	"github.com/acpgen/acpgen/generator/source"
)

// Channel is one schema file generated into one Go package.
type Channel struct {
	Name       string // "stable", "unstable", "v2" or "v2-unstable"
	Protocol   int    // ACP wire protocol version of the schema: 1 or 2
	SchemaFile string // file name inside the schema folder
	MetaFile   string // meta file name: cross-checked if present in the schema folder (CheckMeta), written into MetaDir
	OutDir     string // output folder, relative to the output root
	Package    string // Go package name
	ImportPath string // Go import path of OutDir
	// Overlays are overlay files applied in order to this channel's schema.
	Overlays []string
}

// Config is everything one generation needs.
type Config struct {
	// Root is the output root (relative to the current folder, or absolute);
	// OutDir and MetaDir are relative to it.
	Root string
	// SchemaDir holds the schema files, and lock.json when they are a
	// pinned release (it names the release in the provenance).
	SchemaDir string
	// CheckMeta cross-checks meta files found in SchemaDir with the schema.
	CheckMeta bool
	// MetaDir receives the derived meta files (slash-separated, relative to
	// the output root); "" writes none.
	MetaDir  string
	Channels []Channel
	// GateOnly are configured channels not being generated (generate
	// --channel): they are loaded only so that a gate row is judged stale
	// over every configured channel, not only the emitted ones.
	GateOnly []Channel
	// Descriptions copies the schema's description text into doc comments.
	Descriptions bool
	// StrictGates makes a capability gate that matches nothing in any channel
	// an error (the pinned schema); otherwise such gates are reported and skipped.
	StrictGates bool
	// Report receives notes such as skipped gates; nil discards them.
	Report io.Writer
}

// Owned lists the output folders of cfg, where stale generated files are removed.
func (cfg Config) Owned() []string {
	var out []string
	for _, ch := range cfg.Channels {
		out = append(out, ch.OutDir)
	}
	return out
}

// Module is this repository's module path.
const Module = "github.com/acpgen/acpgen"

// Loaded is one channel's schema file with its overlays applied, the IR of
// the result, and the overlays' gate rows bound to its methods.
type Loaded struct {
	Data   []byte          // the schema file as read (its hash is the provenance)
	Merged *overlay.Result // the merged schema, the overlays' declarations and semantics
	Model  *ir.Model
	// Gates are the overlays' rows: declared on methods, and bound from
	// their declarations on defs.
	Gates []facts.Gate
}

// LoadChannel reads a schema file, applies the overlays, builds the IR of
// the merged schema (loaded once, by the overlay step) and binds the
// overlays' gates on it.
func LoadChannel(file string, overlays []string, channel string) (*Loaded, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%s channel: %w", channel, err)
	}
	merged, err := overlay.ApplyFiles(data, file, overlays)
	if err != nil {
		return nil, err
	}
	m, err := ir.Build(merged.Doc, channel)
	if err != nil {
		return nil, err
	}
	bound, err := m.BindGates(merged.DefGates)
	if err != nil {
		return nil, err
	}
	gates := append(slices.Clone(merged.Gates), bound...)
	return &Loaded{Data: data, Merged: merged, Model: m, Gates: gates}, nil
}

// Generate produces every output file in memory: slash-separated path -> bytes.
func Generate(cfg Config) (map[string][]byte, error) {
	out := map[string][]byte{}
	var resolved []ir.ChannelGates
	var lifecycle []string                // ACP lifecycle facts a channel lacks
	streamed := map[int]map[string]bool{} // protocol -> streamed tags of its channels with a session/update
	models := map[int][]*ir.Model{}       // protocol -> its channels' models
	var undecided []string                // methods without a gate decision
	var lock *source.Lock
	if l, err := source.ReadLock(filepath.Join(cfg.SchemaDir, source.LockFile)); err == nil {
		lock = l
	}
	for _, ch := range cfg.Channels {
		file := filepath.Join(cfg.SchemaDir, ch.SchemaFile)
		ld, err := LoadChannel(file, ch.Overlays, ch.Name)
		if err != nil {
			return nil, err
		}
		data, merged, m := ld.Data, ld.Merged, ld.Model
		protocol := ch.Protocol
		if protocol == 0 {
			protocol = 1
		}
		if len(m.Methods) == 0 {
			return nil, fmt.Errorf("%s: no methods: none of the routing unions (AgentRequest, ClientRequest, ...) routes an x-method def; is this an ACP schema?", file)
		}
		if err := metaFiles(cfg, ch, m, protocol, out); err != nil {
			return nil, err
		}
		sum := sha256.Sum256(data)
		o := emit.Config{
			Package: ch.Package, ImportPath: ch.ImportPath, Descriptions: cfg.Descriptions,
			SchemaFile: ch.SchemaFile, SchemaSHA256: hex.EncodeToString(sum[:]),
			ProtocolVersion: protocol,
			Overlays:        merged.Overlays,
			Semantics:       merged.Semantics,
		}
		src := "local schema folder"
		if lock != nil && lock.Files[ch.SchemaFile] == "sha256:"+o.SchemaSHA256 {
			o.SchemaPackage, o.SchemaVersion = lock.Package, lock.Version
			src = lock.Package + "@" + lock.Version
		}
		ts, err := testSchema(merged.Doc)
		if err != nil {
			return nil, err
		}
		tsum := sha256.Sum256(ts)
		o.TestSchemaSHA256 = hex.EncodeToString(tsum[:])
		out[path.Join(ch.OutDir, emit.TestSchemaFile)] = ts
		o.Provenance = []string{
			fmt.Sprintf("Source: %s, %s (%s channel, protocol v%d), sha256 %s.", src, ch.SchemaFile, ch.Name, protocol, o.SchemaSHA256),
		}
		for _, gap := range m.LifecycleGaps(protocol) {
			lifecycle = append(lifecycle, ch.Name+": "+gap)
		}
		if tags, ok := m.Streamed(); ok {
			if streamed[protocol] == nil {
				streamed[protocol] = map[string]bool{}
			}
			for _, tag := range tags {
				streamed[protocol][tag] = true
			}
		}
		cg := channelGates(ch.Name, protocol, ld)
		o.Gates = cg.Gates
		resolved = append(resolved, cg)
		models[protocol] = append(models[protocol], m)
		for _, x := range m.UndecidedMethods(append(slices.Clone(facts.ForProtocol(protocol)), ld.Gates...), facts.UngatedForProtocol(protocol)) {
			undecided = append(undecided, ch.Name+": "+x)
		}
		files, err := emit.Files(m, o)
		if err != nil {
			return nil, err
		}
		for name, b := range files {
			out[path.Join(ch.OutDir, name)] = b
		}
	}
	for _, ch := range cfg.GateOnly {
		ld, err := LoadChannel(filepath.Join(cfg.SchemaDir, ch.SchemaFile), ch.Overlays, ch.Name)
		if err != nil {
			return nil, err
		}
		resolved = append(resolved, channelGates(ch.Name, max(ch.Protocol, 1), ld))
		models[max(ch.Protocol, 1)] = append(models[max(ch.Protocol, 1)], ld.Model)
	}
	// A lifecycle fact a channel lacks, like a row that applies to no
	// channel, is stale: against the pinned schema that is an error; against
	// other bases it is only reported.
	for _, protocol := range slices.Sorted(maps.Keys(streamed)) {
		have := streamed[protocol]
		for _, tag := range ir.StreamedUpdates[protocol] {
			if !have[tag] {
				lifecycle = append(lifecycle, fmt.Sprintf("v%d: no channel's session/update has the streamed variant %q (ir.StreamedUpdates)", protocol, tag))
			}
		}
	}
	if len(lifecycle) > 0 {
		if cfg.StrictGates {
			return nil, fmt.Errorf("ACP lifecycle facts (generator/ir/protocol.go) that match nothing:\n  %s", strings.Join(lifecycle, "\n  "))
		}
		if cfg.Report != nil {
			for _, s := range lifecycle {
				fmt.Fprintf(cfg.Report, "lifecycle not handled: %s\n", s)
			}
		}
	}
	if stale := ir.StaleGates(resolved); len(stale) > 0 {
		if cfg.StrictGates {
			return nil, fmt.Errorf("capability gates that match nothing:\n  %s", strings.Join(stale, "\n  "))
		}
		if cfg.Report != nil {
			for _, s := range stale {
				fmt.Fprintf(cfg.Report, "gate skipped: %s\n", s)
			}
		}
	}
	// Every method has a gate decision: a method-level row, or an entry of
	// facts.Ungated saying why none. Checked against the pinned schema only:
	// another base (an older release, a vendor overlay's methods) is not this
	// table's to cover.
	if cfg.StrictGates {
		for _, protocol := range slices.Sorted(maps.Keys(models)) {
			for _, x := range ir.StaleUngated(facts.UngatedForProtocol(protocol), models[protocol]) {
				undecided = append(undecided, fmt.Sprintf("v%d: facts.Ungated names %s, which no channel has", protocol, x))
			}
		}
		if len(undecided) > 0 {
			return nil, fmt.Errorf("methods without a gate decision (add a row to generator/facts: a gate, or an Ungated entry with its reason):\n  %s", strings.Join(undecided, "\n  "))
		}
	}
	return out, nil
}

// channelGates resolves the gate table of the channel's protocol and its
// overlays' gates on its model.
func channelGates(name string, protocol int, ld *Loaded) ir.ChannelGates {
	rows := append(slices.Clone(facts.ForProtocol(protocol)), ld.Gates...)
	gates, skipped := ld.Model.ResolveGates(rows)
	return ir.ChannelGates{Channel: name, Protocol: protocol, Gates: gates, Skipped: skipped}
}

// metaFiles cross-checks a given meta file with the IR's methods and adds
// the meta file they make to out.
func metaFiles(cfg Config, ch Channel, m *ir.Model, protocol int, out map[string][]byte) error {
	if ch.MetaFile == "" {
		return nil
	}
	table, err := meta.FromModel(m, protocol)
	if err != nil {
		return err
	}
	if cfg.CheckMeta {
		metaPath := filepath.Join(cfg.SchemaDir, ch.MetaFile)
		if given, err := os.ReadFile(metaPath); err == nil {
			sets, err := meta.ParseMeta(given, metaPath)
			if err != nil {
				return err
			}
			if err := meta.Compare(table, sets, metaPath); err != nil {
				return err
			}
		}
	}
	if cfg.MetaDir != "" {
		out[path.Join(cfg.MetaDir, ch.MetaFile)] = table.MarshalMeta()
	}
	return nil
}

// Paths returns the output paths in order.
func Paths(files map[string][]byte) []string {
	out := make([]string, 0, len(files))
	for p := range files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
