// Package sweep tries acpgen on every published release of the ACP schema:
// each schema file (v1 and v2) a release of @agentclientprotocol/sdk ships is
// generated into one scratch module, then built and vetted there. It answers
// "would acpgen handle this release?" for the whole history at once, which
// is how shapes that only older releases use are found.
package sweep

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/acpgen/acpgen/generator"
	"github.com/acpgen/acpgen/generator/load"
	"github.com/acpgen/acpgen/generator/output"
	"github.com/acpgen/acpgen/generator/source"
)

// Options says which releases to try and where.
type Options struct {
	Versions []string // the releases, in order
	Cache    string   // the schema cache (source.CacheDir)
	Npm      string   // npm binary, default "npm"
	Work     string   // the scratch module's folder; a new temporary one when ""
	Jobs     int      // builds run at once; default GOMAXPROCS
	Log      io.Writer
}

// Results of a row.
const (
	OK       = "ok"
	Fetch    = "fetch failed"
	Generate = "generate failed"
	Build    = "build failed"
	Vet      = "vet failed"
)

// Row is the outcome for one schema file of one release.
type Row struct {
	Version  string
	Protocol string // "v1" or "v2"
	Channel  string // stable, unstable, v2 or v2-unstable
	Defs     int
	Result   string
	Err      string // the first line of the first error
	pkg      string // the package folder in the scratch module
}

// files are the schema files a release may ship, as the cache names them:
// v1 before 2.0 only the unstable one (schema/schema.json), from 2.0 both;
// the v2 draft's unstable file from 1.3, its stable one from 2.0.
var files = []struct {
	name, channel string
	protocol      int
}{
	{source.StableFile, "stable", 1}, {source.UnstableFile, "unstable", 1},
	{source.V2StableFile, "v2", 2}, {source.V2UnstableFile, "v2-unstable", 2},
}

// Run fetches, generates, builds and vets every release in o.Versions. Only
// a failure to set up the scratch module is an error; a release that fails
// is a row that says how.
func Run(ctx context.Context, o Options) ([]Row, error) {
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	work := o.Work
	if work == "" {
		dir, err := os.MkdirTemp("", "acpgen-sweep-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		work = dir
	}
	if err := scratchModule(work); err != nil {
		return nil, err
	}
	var rows []*Row
	b := newBuilder(ctx, work, o.Jobs)
	for _, v := range o.Versions {
		for _, r := range generateRelease(ctx, o, work, v, log) {
			rows = append(rows, r)
			if r.Result == "" {
				b.add(r)
			}
		}
	}
	b.wait()
	out := make([]Row, len(rows))
	for i, r := range rows {
		out[i] = *r
	}
	return out, ctx.Err()
}

// generateRelease fetches one release and generates each of its schema files;
// rows still to be built have no Result yet.
func generateRelease(ctx context.Context, o Options, work, version string, log io.Writer) []*Row {
	// Refresh: a release cached before acpgen took the v2 files lacks them.
	dir, _, err := source.Fetch(ctx, source.FetchOptions{Cache: o.Cache, Npm: o.Npm, Stderr: log, Refresh: true}, nil, version)
	if err != nil {
		return []*Row{{Version: version, Result: Fetch, Err: firstLine(err.Error())}}
	}
	var rows []*Row
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(dir, f.name)); err != nil {
			continue
		}
		r := &Row{Version: version, Protocol: fmt.Sprintf("v%d", f.protocol), Channel: f.channel}
		fmt.Fprintf(log, "acpgen: sweep: generating %s %s\n", version, f.channel)
		if err := generate(ctx, work, dir, f.name, f.protocol, r); err != nil {
			r.Result, r.Err = Generate, firstLine(err.Error())
		}
		rows = append(rows, r)
	}
	return rows
}

// generate writes one schema file's package into the scratch module.
func generate(ctx context.Context, work, dir, file string, protocol int, r *Row) error {
	doc, err := load.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return err
	}
	r.Defs = len(doc.Root.Defs)
	r.pkg = "v" + strings.NewReplacer(".", "_", "-", "_", "+", "_").Replace(r.Version) + "/" + r.Channel
	cfg := generator.Config{Root: work, SchemaDir: dir, Channels: []generator.Channel{{
		Name: r.Channel, Protocol: protocol, SchemaFile: file, OutDir: r.pkg, Package: "acp", ImportPath: modulePath + "/" + r.pkg,
	}}}
	files, err := generator.Generate(cfg)
	if err != nil {
		return err
	}
	_, err = output.WriteContext(ctx, work, files, []string{r.pkg})
	return err
}

// builder builds and vets generated packages, a bounded number at once; the
// go commands share the build cache, so what one compiled (the runtime, the
// test dependencies) the others reuse.
type builder struct {
	ctx  context.Context
	work string
	sem  chan struct{}
	wg   sync.WaitGroup
}

func newBuilder(ctx context.Context, work string, jobs int) *builder {
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	return &builder{ctx: ctx, work: work, sem: make(chan struct{}, jobs)}
}

func (b *builder) add(r *Row) {
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		b.sem <- struct{}{}
		defer func() { <-b.sem }()
		r.Result, r.Err = check(b.ctx, b.work, r.pkg)
	}()
}

func (b *builder) wait() { b.wg.Wait() }

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
