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
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/acpgen/acpgen/generator"
	"github.com/acpgen/acpgen/generator/source"
	"github.com/xeipuuv/gojsonschema"
)

// Schema is the JSON Schema of the configuration file, published in the
// repository as generator/config/acpgen.schema.json.
//
//go:embed acpgen.schema.json
var Schema []byte

// FileName is the configuration file generate reads when no --config is given.
const FileName = "acpgen.json"

// File is the configuration file as written. Pointers and nil slices tell an
// absent key from a zero value, because an absent key takes a default.
type File struct {
	SchemaRef    string    `json:"$schema,omitempty"`
	Schema       *Source   `json:"schema,omitempty"`
	Descriptions *bool     `json:"descriptions,omitempty"`
	Channels     []Channel `json:"channels,omitempty"`
}

// Source says where the upstream schema files come from.
type Source struct {
	Dir       string `json:"dir,omitempty"`
	Version   string `json:"version,omitempty"`
	URL       string `json:"url,omitempty"`
	WriteMeta *bool  `json:"writeMeta,omitempty"`
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
		return "unknown key (see generator/config/acpgen.schema.json)"
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
// exist), else FileName in the current folder if present, else "".
func Find(explicit string) (string, error) {
	if explicit != "" {
		if _, err := os.Stat(explicit); err != nil {
			return "", fmt.Errorf("--config: %w", err)
		}
		return explicit, nil
	}
	if _, err := os.Stat(FileName); err == nil {
		return FileName, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	return "", nil
}

// Overrides are command-line flags; each wins over the file. Map keys and
// Channels name channels.
type Overrides struct {
	SchemaDir    string // relative to the current folder
	Root         string
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
	File      string // the configuration file, "" when built-in defaults apply
	Root      string // output root
	Config    generator.Config
	Version   string // schema.version, "" when unset
	URL       string // schema.url
	WriteMeta *bool  // schema.writeMeta; nil: write when the folder is pinned
}

// Resolve fills in defaults. f may be nil (no file: the repository's own
// configuration); file names it in errors and is the base of relative paths.
func Resolve(f *File, file string, o Overrides) (*Resolved, error) {
	if f == nil {
		f = &File{}
	}
	where := func(k string) string {
		if file == "" {
			return k
		}
		return file + ": " + k
	}
	base := "."
	if file != "" {
		base = filepath.Dir(file)
	}
	r := &Resolved{File: file, Root: base}
	if o.Root != "" {
		r.Root = o.Root
	}
	def := generator.RepoConfig()
	schemaDir := filepath.Join(base, def.SchemaDir)
	if f.Schema != nil {
		if f.Schema.Dir != "" {
			schemaDir = under(base, f.Schema.Dir)
		}
		r.Version, r.URL, r.WriteMeta = f.Schema.Version, f.Schema.URL, f.Schema.WriteMeta
	}
	if o.SchemaDir != "" {
		schemaDir = o.SchemaDir
	}
	cfg := generator.Config{SchemaDir: schemaDir, MetaDir: schemaDir}
	if f.Descriptions != nil {
		cfg.Descriptions = *f.Descriptions
	}
	if o.Descriptions != nil {
		cfg.Descriptions = *o.Descriptions
	}

	defaults := map[string]generator.Channel{}
	for _, ch := range def.Channels {
		defaults[ch.Name] = ch
	}
	mod, modDir := findModule(r.Root)
	// acpgen's own default overlays are files of this repository, so a
	// channel inherits them only here; elsewhere it starts with none.
	inRepo := mod == generator.Module
	// The round-trip tests and the strict gate check hold for the pinned
	// schema of this repository only; other bases get neither.
	pinnedRepo := inRepo && absOr(schemaDir) == filepath.Join(modDir, def.SchemaDir)
	cfg.StrictGates = pinnedRepo

	type entry struct {
		ch      generator.Channel
		key     string // channels[i], for errors
		outSet  bool
		pathSet bool
	}
	var entries []entry
	if len(f.Channels) == 0 {
		for _, ch := range def.Channels {
			if !inRepo {
				ch.Overlays = nil
			}
			entries = append(entries, entry{ch: ch, key: "channels (default " + ch.Name + ")"})
		}
	}
	for i, c := range f.Channels {
		ch := defaults[c.Name]
		if !inRepo {
			ch.Overlays = nil
		}
		e := entry{key: fmt.Sprintf("channels[%d]", i)}
		set := func(dst *string, v string) {
			if v != "" {
				*dst = v
			}
		}
		set(&ch.SchemaFile, c.Schema)
		set(&ch.MetaFile, c.Meta)
		set(&ch.Package, c.Package)
		if c.Out != "" {
			ch.OutDir, e.outSet = c.Out, true
		}
		if c.ImportPath != "" {
			ch.ImportPath, e.pathSet = c.ImportPath, true
		}
		if c.Overlays != nil {
			ch.Overlays = nil
			for _, ov := range *c.Overlays {
				ch.Overlays = append(ch.Overlays, under(base, ov))
			}
		}
		e.ch = ch
		entries = append(entries, e)
	}

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
		entries = kept
		names = o.Channels
	}
	for flag, m := range map[string]map[string]string{"--out": o.Out, "--package": o.Package, "--import-path": o.ImportPath} {
		for n := range m {
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
			e.ch.OutDir, e.outSet, e.key = v, true, "--out "+n
		}
		if v, ok := o.Package[n]; ok {
			e.ch.Package = v
		}
		if v, ok := o.ImportPath[n]; ok {
			e.ch.ImportPath, e.pathSet = v, true
		}
		e.ch.Overlays = slices.Concat(e.ch.Overlays, o.Overlays)
		if !e.pathSet {
			switch {
			case mod != "":
				rel, err := filepath.Rel(modDir, filepath.Join(absOr(r.Root), filepath.FromSlash(e.ch.OutDir)))
				if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
					return nil, fmt.Errorf("%s: output folder %s is outside module %s (%s); set importPath", where(e.key), e.ch.OutDir, mod, modDir)
				}
				e.ch.ImportPath = path.Join(mod, filepath.ToSlash(rel))
			case e.outSet:
				return nil, fmt.Errorf("%s: importPath is not set and no go.mod was found in or above %s to derive it", where(e.key), r.Root)
			}
			// Otherwise the default channel's import path stays.
		}
		// Generated tests import acpgen's internal packages, which Go
		// allows only inside its module.
		inModule := e.ch.ImportPath == generator.Module || strings.HasPrefix(e.ch.ImportPath, generator.Module+"/")
		e.ch.NoRoundTripTest = !pinnedRepo || !inModule
		if !goIdent.MatchString(e.ch.Package) {
			return nil, fmt.Errorf("%s: package %q is not a Go package name", where(e.key), e.ch.Package)
		}
		cfg.Channels = append(cfg.Channels, e.ch)
	}
	outs := map[string]string{}
	for _, ch := range cfg.Channels {
		if prev, ok := outs[ch.OutDir]; ok {
			return nil, fmt.Errorf("%s: channels %s and %s both write into %s", where("channels"), prev, ch.Name, ch.OutDir)
		}
		outs[ch.OutDir] = ch.Name
	}
	r.Config = cfg
	return r, nil
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

// findModule returns the module path and folder of the nearest go.mod in or
// above dir, or "" when there is none.
func findModule(dir string) (mod, modDir string) {
	d := absOr(dir)
	for {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			for _, line := range strings.Split(string(data), "\n") {
				if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
					rest = strings.TrimSpace(rest)
					if u, err := strconv.Unquote(rest); err == nil {
						rest = u
					}
					return rest, d
				}
			}
			return "", ""
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", ""
		}
		d = parent
	}
}

// Prepare makes the schema folder ready: a folder pinned by lock.json is
// verified (and pulled when files are missing); a folder without a lock is
// pulled at schema.version when one is configured, else used as it is. It
// decides whether meta files are written.
func (r *Resolved) Prepare(ctx context.Context, stderr io.Writer) error {
	dir := r.Config.SchemaDir
	lockPath := filepath.Join(dir, source.LockFile)
	pinned := false
	l, err := source.ReadLock(lockPath)
	switch {
	case err == nil:
		if r.Version != "" && l.Version != r.Version {
			return fmt.Errorf("%s: schema.version is %s but %s pins %s: run `acpgen schema pull --version %s` to move to %s, or set schema.version to %s",
				r.File, r.Version, lockPath, l.Version, r.Version, r.Version, l.Version)
		}
		if _, err := source.Ensure(ctx, dir, stderr); err != nil {
			return err
		}
		pinned = true
	case errors.Is(err, fs.ErrNotExist):
		if r.Version != "" {
			if _, err := source.Pull(ctx, source.PullOptions{Dir: dir, Version: r.Version, FromURL: r.URL, Stderr: stderr}); err != nil {
				return err
			}
			pinned = true
		}
	default:
		return err
	}
	r.Config.WriteMeta = pinned
	if r.WriteMeta != nil {
		r.Config.WriteMeta = *r.WriteMeta
	}
	return nil
}

// Generate runs the generator. Generated files that import one of acpgen's
// internal packages (the round-trip test registry) are left out of output
// outside acpgen's module, where Go would refuse to compile them.
func (r *Resolved) Generate() (map[string][]byte, error) {
	files, err := generator.Generate(r.Config)
	if err != nil {
		return nil, err
	}
	internal := []byte(`"` + generator.Module + "/internal/")
	for _, ch := range r.Config.Channels {
		if ch.ImportPath == generator.Module || strings.HasPrefix(ch.ImportPath, generator.Module+"/") {
			continue
		}
		for p, b := range files {
			if path.Dir(p) == ch.OutDir && bytes.Contains(b, internal) {
				delete(files, p)
			}
		}
	}
	return files, nil
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
	return true, os.WriteFile(file, out, fi.Mode().Perm())
}
