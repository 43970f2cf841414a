// Package config reads acpgen.json, the file that drives `acpgen generate`,
// validates it against its published JSON Schema, and resolves it, with
// command-line overrides, into a generator.Config.
package config

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/acpgen/acpgen/generator"
	"github.com/acpgen/acpgen/generator/source"
	"github.com/acpgen/acpgen/generator/typecheck"
	"github.com/acpgen/acpgen/internal/atomicfile"
	"github.com/xeipuuv/gojsonschema"
	"golang.org/x/mod/modfile"
)

// Schema is the JSON Schema of the configuration file, published in the
// repository as generator/config/acpgen.schema.json.
//
//go:embed acpgen.schema.json
var Schema []byte

// FileName is the configuration file generate reads when no --config is given.
const FileName = "acpgen.json"

// TestedVersion is the release of the schema package that acpgen's own SDK
// is generated from and tested against (this repository's schema/lock.json
// pins it); `acpgen init` starts new configurations at it.
const TestedVersion = "2.4.0"

// File is the configuration file as written. Pointers and nil slices tell an
// absent key from a zero value, because an absent key takes a default.
type File struct {
	SchemaRef    string    `json:"$schema,omitempty"`
	Schema       *Source   `json:"schema,omitempty"`
	MetaDir      string    `json:"metaDir,omitempty"`
	Descriptions *bool     `json:"descriptions,omitempty"`
	StrictGates  *bool     `json:"strictGates,omitempty"`
	Channels     []Channel `json:"channels,omitempty"`
}

// Source says where the upstream schema files come from.
type Source struct {
	Dir     string `json:"dir,omitempty"`
	Version string `json:"version,omitempty"`
	URL     string `json:"url,omitempty"`
}

// Channel is one schema channel emitted into one Go package.
type Channel struct {
	Name       string    `json:"name"`
	Schema     string    `json:"schema,omitempty"`
	Meta       string    `json:"meta,omitempty"`
	Out        string    `json:"out,omitempty"`
	Package    string    `json:"package,omitempty"`
	ImportPath string    `json:"importPath,omitempty"`
	Overlays   *[]string `json:"overlays,omitempty"`
}

var compiled = func() *gojsonschema.Schema {
	s, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(Schema))
	if err != nil {
		panic("config: the embedded acpgen.schema.json does not compile: " + err.Error())
	}
	return s
}()

// Load reads and validates a configuration file.
func Load(file string) (*File, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return Parse(file, data)
}

// Parse validates data (read from file) against the JSON Schema and decodes
// it. Every error names the file and the key.
func Parse(file string, data []byte) (*File, error) {
	var probe any
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("%s: not valid JSON: %s", file, jsonErr(data, err))
	}
	res, err := compiled.Validate(gojsonschema.NewBytesLoader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if !res.Valid() {
		var msgs []string
		for _, e := range res.Errors() {
			msgs = append(msgs, fmt.Sprintf("%s: %s: %s", file, key(e), describe(e)))
		}
		slices.Sort(msgs)
		return nil, errors.New(strings.Join(slices.Compact(msgs), "\n"))
	}
	var f File
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields() // the schema already forbids them; belt and braces
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	seen := map[string]int{}
	for i, ch := range f.Channels {
		if j, ok := seen[ch.Name]; ok {
			return nil, fmt.Errorf("%s: channels[%d].name: channel %q is already configured at channels[%d]", file, i, ch.Name, j)
		}
		seen[ch.Name] = i
		if ch.Out != "" {
			if err := relativeSlashPath(ch.Out); err != nil {
				return nil, fmt.Errorf("%s: channels[%d].out: %w", file, i, err)
			}
		}
	}
	return &f, nil
}

// key renders the location of a validation error as a key path such as
// channels[0].package, naming the offending member itself for unknown and
// missing keys.
func key(e gojsonschema.ResultError) string {
	var parts []string
	if f := e.Field(); f != "(root)" && f != "" {
		parts = strings.Split(f, ".")
	}
	switch e.Type() {
	case "additional_property_not_allowed", "required":
		if p, ok := e.Details()["property"].(string); ok {
			parts = append(parts, p)
		}
	}
	var b strings.Builder
	for _, p := range parts {
		if _, err := strconv.Atoi(p); err == nil {
			b.WriteString("[" + p + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteString(".")
		}
		b.WriteString(p)
	}
	if b.Len() == 0 {
		return "(top level)"
	}
	return b.String()
}

func describe(e gojsonschema.ResultError) string {
	switch e.Type() {
	case "additional_property_not_allowed":
		return "unknown key (`acpgen config schema` prints the allowed keys)"
	case "required":
		return "required key is missing"
	}
	return e.Description()
}

// jsonErr adds a line and column to a JSON syntax error.
func jsonErr(data []byte, err error) string {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return err.Error()
	}
	line, col := 1, 1
	// Offset counts the offending byte itself.
	for _, c := range data[:max(min(int(se.Offset)-1, len(data)), 0)] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("line %d, column %d: %v", line, col, err)
}

func relativeSlashPath(p string) error {
	switch {
	case strings.Contains(p, `\`):
		return fmt.Errorf("%q: use forward slashes", p)
	case path.IsAbs(p) || filepath.IsAbs(p):
		return fmt.Errorf("%q: must be relative to the output root", p)
	case path.Clean(p) != p || p == "." || p == ".." || strings.HasPrefix(p, "../"):
		return fmt.Errorf("%q: must be a clean path inside the output root", p)
	}
	return nil
}

// Find returns the configuration file to use: explicit if given (it must
// exist), else the FileName nearest the current folder, looking in it and
// then up through its parents to the root of the Go module it is in (as the
// go command finds go.mod), so that go generate in a subpackage finds the
// module's configuration; outside any module, only the current folder. ""
// when there is none.
func Find(explicit string) (string, error) {
	if explicit != "" {
		if _, err := os.Stat(explicit); err != nil {
			return "", fmt.Errorf("--config: %w", err)
		}
		return explicit, nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	_, modDir := FindModule(cwd)
	rel := FileName
	for d := cwd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, FileName)); err == nil {
			return rel, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if modDir == "" || d == modDir || filepath.Dir(d) == d {
			return "", nil
		}
		rel = filepath.Join("..", rel)
	}
}

// Overrides are command-line flags; each wins over the file. Map keys and
// Channels name channels.
type Overrides struct {
	SchemaDir    string // a read-only folder of schema files, instead of the pinned release
	FromURL      string // where to take the release from instead of npm (as schema.url)
	Root         string
	Cache        string // the schema cache (default: source.CacheDir)
	Descriptions *bool
	Channels     []string
	Out          map[string]string
	Package      map[string]string
	ImportPath   map[string]string
	Overlays     []string // applied to every channel after the configured ones
}

// Resolved is a configuration with every default filled in and every path
// relative to the current folder.
type Resolved struct {
	File      string // the configuration file
	Root      string // output root
	LockDir   string // schema.dir: the folder holding lock.json
	SchemaDir string // --schema-dir: a read-only folder of schema files; "" reads the pinned release from the cache
	Cache     string // the schema cache
	Version   string // schema.version, "" when unset
	URL       string // schema.url
	Config    generator.Config

	// Set by Prepare.
	Lock    *source.Lock // the release in force; nil for a folder without a lock
	NewLock bool         // Prepare pinned a release: lock.json is one of the outputs

	importErr error // an import path that could not be derived

	// overlayKeys names where each overlay path was configured
	// ("acpgen.json: channels[0].overlays[1]", "--overlay"), for errors.
	overlayKeys map[string]string
}

// ImportPaths reports a channel whose Go import path is unknown: it was not
// configured and no go.mod lies above the output root. Commands that emit Go
// need every import path; the others do not.
func (r *Resolved) ImportPaths() error { return r.importErr }

// channelDefaults are the keys a channel entry may leave out.
var channelDefaults = map[string]generator.Channel{
	"stable":      {Name: "stable", Protocol: 1, SchemaFile: source.StableFile, MetaFile: "meta.json", OutDir: "acp", Package: "acp"},
	"unstable":    {Name: "unstable", Protocol: 1, SchemaFile: source.UnstableFile, MetaFile: "meta.unstable.json", OutDir: "acp/unstable", Package: "unstable"},
	"v2":          {Name: "v2", Protocol: 2, SchemaFile: source.V2StableFile, MetaFile: "meta.v2.json", OutDir: "acp/v2", Package: "acp"},
	"v2-unstable": {Name: "v2-unstable", Protocol: 2, SchemaFile: source.V2UnstableFile, MetaFile: "meta.v2.unstable.json", OutDir: "acp/v2/unstable", Package: "unstable"},
}

// ChannelNames are the channels a configuration may name, in order.
var ChannelNames = []string{"stable", "unstable", "v2", "v2-unstable"}

// DefaultChannel is a channel's defaults: its schema file in a release, its
// meta file, output folder and package.
func DefaultChannel(name string) (generator.Channel, bool) {
	ch, ok := channelDefaults[name]
	return ch, ok
}

// ErrNoConfig is returned where a command needs a configuration and none
// was found.
var ErrNoConfig = errors.New("no " + FileName + " in this folder or above it in its module: run `acpgen init` to write a starter (or pass --config FILE)")

// Resolve fills in defaults. file names the configuration in errors and is
// the base of relative paths.
func Resolve(f *File, file string, o Overrides) (*Resolved, error) {
	if f == nil {
		return nil, ErrNoConfig
	}
	where := func(k string) string { return file + ": " + k }
	base := filepath.Dir(file)
	r := &Resolved{File: file, Root: base, LockDir: filepath.Join(base, "schema"), SchemaDir: o.SchemaDir}
	if o.Root != "" {
		r.Root = o.Root
	}
	if f.Schema != nil {
		if f.Schema.Dir != "" {
			r.LockDir = under(base, f.Schema.Dir)
		}
		r.Version, r.URL = f.Schema.Version, f.Schema.URL
	}
	if o.FromURL != "" {
		r.URL = o.FromURL
	}
	cache, err := source.CacheDir(o.Cache)
	if err != nil {
		return nil, err
	}
	r.Cache = cache
	cfg := generator.Config{Root: r.Root, StrictGates: f.StrictGates != nil && *f.StrictGates}
	if f.MetaDir != "" {
		rel, err := filepath.Rel(absOr(r.Root), absOr(under(base, f.MetaDir)))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where("metaDir"), err)
		}
		cfg.MetaDir = filepath.ToSlash(rel)
	}
	if f.Descriptions != nil {
		cfg.Descriptions = *f.Descriptions
	}
	if o.Descriptions != nil {
		cfg.Descriptions = *o.Descriptions
	}
	entries, err := channelEntries(f, base)
	if err != nil {
		return nil, err
	}
	r.overlayKeys = map[string]string{}
	for i, c := range f.Channels {
		if c.Overlays != nil {
			for j, ov := range *c.Overlays {
				r.overlayKeys[under(base, ov)] = fmt.Sprintf("%s: channels[%d].overlays[%d]", file, i, j)
			}
		}
	}
	for _, ov := range o.Overlays {
		r.overlayKeys[ov] = "--overlay"
	}
	configured := slices.Clone(entries)
	if entries, err = o.apply(entries); err != nil {
		return nil, err
	}
	if cfg.Channels, err = r.channels(entries, where); err != nil {
		return nil, err
	}
	for _, e := range configured {
		if !slices.ContainsFunc(entries, func(k entry) bool { return k.ch.Name == e.ch.Name }) {
			e.ch.Overlays = slices.Concat(e.ch.Overlays, o.Overlays)
			cfg.GateOnly = append(cfg.GateOnly, e.ch)
		}
	}
	r.Config = cfg
	return r, nil
}

// channels completes the entries: an import path derived from the module
// when none is set, a Go package name, one output folder each. A missing
// module is recorded in r for the commands that emit Go.
func (r *Resolved) channels(entries []entry, where func(string) string) ([]generator.Channel, error) {
	var out []generator.Channel
	mod, modDir := FindModule(r.Root)
	for i := range entries {
		e := &entries[i]
		if !e.pathSet && mod == "" {
			// Only commands that emit Go need it (see ImportPaths).
			if r.importErr == nil {
				r.importErr = fmt.Errorf("%s: importPath is not set and no go.mod was found in or above %s to derive it", where(e.key), r.Root)
			}
		} else if !e.pathSet {
			rel, err := filepath.Rel(modDir, filepath.Join(absOr(r.Root), filepath.FromSlash(e.ch.OutDir)))
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return nil, fmt.Errorf("%s: output folder %s is outside module %s (%s); set importPath", where(e.key), e.ch.OutDir, mod, modDir)
			}
			e.ch.ImportPath = path.Join(mod, filepath.ToSlash(rel))
		}
		if !goIdent.MatchString(e.ch.Package) {
			return nil, fmt.Errorf("%s: package %q is not a Go package name", where(e.key), e.ch.Package)
		}
		out = append(out, e.ch)
	}
	outs := map[string]string{}
	for _, ch := range out {
		if prev, ok := outs[ch.OutDir]; ok {
			return nil, fmt.Errorf("%s: channels %s and %s both write into %s", where("channels"), prev, ch.Name, ch.OutDir)
		}
		outs[ch.OutDir] = ch.Name
	}
	return out, nil
}

// entry is one channel being resolved.
type entry struct {
	ch      generator.Channel
	key     string // channels[i] or the flag, for errors
	pathSet bool
}

// channelEntries are the configured channels with their defaults.
func channelEntries(f *File, base string) ([]entry, error) {
	var out []entry
	for i, c := range f.Channels {
		ch := channelDefaults[c.Name]
		set := func(dst *string, v string) {
			if v != "" {
				*dst = v
			}
		}
		set(&ch.SchemaFile, c.Schema)
		set(&ch.MetaFile, c.Meta)
		set(&ch.Package, c.Package)
		set(&ch.OutDir, c.Out)
		set(&ch.ImportPath, c.ImportPath)
		if c.Overlays != nil {
			for _, ov := range *c.Overlays {
				ch.Overlays = append(ch.Overlays, under(base, ov))
			}
		}
		out = append(out, entry{ch: ch, key: fmt.Sprintf("channels[%d]", i), pathSet: c.ImportPath != ""})
	}
	return out, nil
}

// apply selects channels and applies the per-channel flags.
func (o Overrides) apply(entries []entry) ([]entry, error) {
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.ch.Name
	}
	if len(o.Channels) > 0 {
		var kept []entry
		for _, n := range o.Channels {
			i := slices.Index(names, n)
			if i < 0 {
				return nil, fmt.Errorf("--channel %s: not among the configured channels (%s)", n, strings.Join(names, ", "))
			}
			kept = append(kept, entries[i])
		}
		entries, names = kept, o.Channels
	}
	for _, flag := range []string{"--out", "--package", "--import-path"} {
		m := map[string]map[string]string{"--out": o.Out, "--package": o.Package, "--import-path": o.ImportPath}[flag]
		for _, n := range slices.Sorted(maps.Keys(m)) {
			if !slices.Contains(names, n) {
				return nil, fmt.Errorf("%s %s=...: no channel %q is being generated (%s)", flag, n, n, strings.Join(names, ", "))
			}
		}
	}
	for i := range entries {
		e := &entries[i]
		n := e.ch.Name
		if v, ok := o.Out[n]; ok {
			if err := relativeSlashPath(v); err != nil {
				return nil, fmt.Errorf("--out %s: %w", n, err)
			}
			e.ch.OutDir, e.key = v, "--out "+n
			if _, ok := o.ImportPath[n]; !ok {
				e.pathSet = false // derived again for the new folder
			}
		}
		if v, ok := o.Package[n]; ok {
			e.ch.Package = v
		}
		if v, ok := o.ImportPath[n]; ok {
			e.ch.ImportPath, e.pathSet = v, true
		}
		e.ch.Overlays = slices.Concat(e.ch.Overlays, o.Overlays)
	}
	return entries, nil
}

// under resolves a path from the configuration against its folder.
func under(base, p string) string {
	p = filepath.FromSlash(p)
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(base, p)
}

var goIdent = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

func absOr(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// FindModule returns the module path and folder of the nearest go.mod in or
// above dir (which need not exist yet), or "" when there is none.
func FindModule(dir string) (mod, modDir string) {
	d := absOr(dir)
	for {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			return modfile.ModulePath(data), d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", ""
		}
		d = parent
	}
}

// ReadGoMod parses the go.mod in dir, nil when there is none or it does not
// parse (the go command reports that better).
func ReadGoMod(dir string) *modfile.File {
	if dir == "" {
		return nil
	}
	p := filepath.Join(dir, "go.mod")
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	f, err := modfile.Parse(p, data, nil)
	if err != nil {
		return nil
	}
	return f
}

// LockPath is the lock of the configured schema folder.
func (r *Resolved) LockPath() string { return filepath.Join(r.LockDir, source.LockFile) }

// Fetch is how this configuration fills the schema cache.
func (r *Resolved) Fetch(stderr io.Writer) source.FetchOptions {
	return source.FetchOptions{Cache: r.Cache, FromURL: r.URL, Stderr: stderr}
}

// Prepare makes the schema ready and points the generator at it. A
// --schema-dir folder is read as it is, verified against its own lock.json
// when it has one, and never written. Otherwise the release pinned by
// schema.dir/lock.json is read from the cache, fetched into it when missing;
// with no lock yet, schema.version is fetched and its lock becomes an output.
func (r *Resolved) Prepare(ctx context.Context, stderr io.Writer) error {
	if r.SchemaDir != "" {
		return r.prepareFolder()
	}
	l, err := source.ReadLock(r.LockPath())
	switch {
	case err == nil:
		if r.Version != "" && l.Version != r.Version {
			return fmt.Errorf("%s: schema.version is %s but %s pins %s: run `acpgen schema pull --version %s` to move to %s, or set schema.version to %s",
				r.File, r.Version, r.LockPath(), l.Version, r.Version, r.Version, l.Version)
		}
		if err := r.pinsChannels(l); err != nil {
			return err
		}
		dir, _, err := source.Fetch(ctx, r.Fetch(stderr), l, "")
		if err != nil {
			return fmt.Errorf("%s: %w", r.LockPath(), err)
		}
		r.Config.SchemaDir, r.Lock = dir, l
	case errors.Is(err, fs.ErrNotExist):
		if r.Version == "" {
			return fmt.Errorf("%s does not exist and %s sets no schema.version: set it (e.g. \"schema\": {\"version\": \"2.4.0\"}), or run `acpgen schema pull --version V`", r.LockPath(), r.File)
		}
		dir, l, err := source.Fetch(ctx, r.Fetch(stderr), nil, r.Version)
		if err != nil {
			return err
		}
		// The fetched release may not ship every configured channel's file.
		if err := r.pinsChannels(l); err != nil {
			return err
		}
		r.Config.SchemaDir, r.Lock, r.NewLock = dir, l, true
	default:
		return err
	}
	return nil
}

// pinsChannels reports a channel whose schema file the lock does not pin.
// The release may not ship it: a lock pins what the release's tarball holds,
// and one that pins a channel's unstable file but not its stable one comes
// from a release that ships only the unstable one (v1 before 2.0.0; the v2
// draft from 1.3.0 to 1.9.0). Otherwise the lock may predate acpgen taking
// the file (the v2 files), and a pull pins it.
func (r *Resolved) pinsChannels(l *source.Lock) error {
	for _, ch := range r.Config.Channels {
		if _, ok := l.Files[ch.SchemaFile]; ok {
			continue
		}
		if unstable, ok := unstableOf[ch.SchemaFile]; ok {
			if _, has := l.Files[unstable.file]; has {
				return fmt.Errorf("%s@%s ships no %s (channel %s), only the %s schema: configure the channel %q instead", l.Package, l.Version, ch.SchemaFile, ch.Name, unstable.what, unstable.channel)
			}
		}
		return fmt.Errorf("%s pins no %s (channel %s): run `acpgen schema pull` to pin every schema file of %s@%s (releases before 1.3.0 ship no v2 schema)", r.LockPath(), ch.SchemaFile, ch.Name, l.Package, l.Version)
	}
	return nil
}

// unstableOf pairs each stable schema file with its channel's unstable one.
var unstableOf = map[string]struct{ file, channel, what string }{
	source.StableFile:   {source.UnstableFile, "unstable", "v1 unstable"},
	source.V2StableFile: {source.V2UnstableFile, "v2-unstable", "v2 unstable"},
}

// prepareFolder checks a --schema-dir folder without writing to it.
func (r *Resolved) prepareFolder() error {
	r.Config.SchemaDir, r.Config.CheckMeta = r.SchemaDir, true
	l, err := source.ReadLock(filepath.Join(r.SchemaDir, source.LockFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var need []string
	for _, ch := range r.Config.Channels {
		need = append(need, ch.SchemaFile)
	}
	if err := source.VerifyPresent(r.SchemaDir, l, need); err != nil {
		return fmt.Errorf("--schema-dir %s: %w", r.SchemaDir, err)
	}
	r.Lock = l
	return nil
}

// Generate runs the generator and returns the outputs by path relative to
// the root, the new lock among them when Prepare pinned a release. No output
// may land in a --schema-dir folder.
func (r *Resolved) Generate() (map[string][]byte, error) {
	if r.importErr != nil {
		return nil, r.importErr
	}
	files, err := generator.Generate(r.Config)
	if err != nil {
		return nil, r.overlayError(err)
	}
	// Go that does not compile never replaces good output.
	typecheck.UseCache(r.Cache)
	if err := typecheck.Check(files, r.Config.SchemaDir); err != nil {
		return nil, err
	}
	if r.NewLock {
		data, err := r.Lock.Marshal()
		if err != nil {
			return nil, err
		}
		rel, err := filepath.Rel(absOr(r.Root), absOr(r.LockPath()))
		if err != nil {
			return nil, err
		}
		files[filepath.ToSlash(rel)] = data
	}
	if r.SchemaDir != "" {
		for _, p := range generator.Paths(files) {
			if source.Inside(absOr(r.SchemaDir), absOr(filepath.Join(r.Root, filepath.FromSlash(p)))) {
				return nil, fmt.Errorf("%s would be written into --schema-dir %s, which acpgen only reads; move the output (channels[].out, metaDir) elsewhere", p, r.SchemaDir)
			}
		}
	}
	return files, nil
}

// overlayError names the configuration key (and so the file) or the flag
// that gave an overlay path which could not be read.
func (r *Resolved) overlayError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if key, ok := r.overlayKeys[pe.Path]; ok {
			return fmt.Errorf("%s: overlay %s: %w", key, pe.Path, pe.Err)
		}
	}
	return err
}

// versionRE finds the version member of the schema object. SetVersion edits
// the text in place, so the file keeps its layout and key order.
var versionRE = regexp.MustCompile(`("version"\s*:\s*)"([^"\\]*)"`)

// SetVersion rewrites schema.version in the configuration file to version,
// if the file sets one. It reports whether it changed the file.
func SetVersion(file, version string) (bool, error) {
	f, err := Load(file)
	if err != nil {
		return false, err
	}
	if f.Schema == nil || f.Schema.Version == "" || f.Schema.Version == version {
		return false, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return false, err
	}
	// "version" is a key only under schema, so exactly one match is expected;
	// anything else means a string value happens to look like one.
	if m := versionRE.FindAllIndex(data, -1); len(m) != 1 {
		return false, fmt.Errorf("%s: cannot find schema.version unambiguously; set it to %q by hand", file, version)
	}
	out := versionRE.ReplaceAll(data, []byte(`${1}"`+version+`"`))
	if _, err := Parse(file, out); err != nil {
		return false, err
	}
	fi, err := os.Stat(file)
	if err != nil {
		return false, err
	}
	return true, atomicfile.Write(file, out, fi.Mode().Perm())
}

// Setup is how every command that generates starts: find and load the
// configuration (explicit, else the nearest acpgen.json; see Find), resolve
// it with the flags, and make its schema ready.
func Setup(ctx context.Context, explicit string, o Overrides, stderr io.Writer) (*Resolved, error) {
	r, err := Open(explicit, o)
	if err != nil {
		return nil, err
	}
	if err := r.Prepare(ctx, stderr); err != nil {
		return nil, err
	}
	return r, nil
}

// Open finds, loads and resolves the configuration without touching the
// schema.
func Open(explicit string, o Overrides) (*Resolved, error) {
	file, err := Find(explicit)
	if err != nil {
		return nil, err
	}
	if file == "" {
		return nil, ErrNoConfig
	}
	f, err := Load(file)
	if err != nil {
		return nil, err
	}
	return Resolve(f, file, o)
}
