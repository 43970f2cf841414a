package typecheck

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/build"
	"go/importer"
	"go/token"
	"go/types"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	"github.com/acpgen/acpgen/generator/source"
	"github.com/acpgen/acpgen/internal/atomicfile"
	"golang.org/x/tools/go/gcexportdata"
)

// The standard library's type information is kept in acpgen's cache
// (source.CacheDir), one file per imported package, as export data
// (golang.org/x/tools/go/gcexportdata): a process that finds them there
// reads them instead of type-checking the standard library from GOROOT's
// sources. Entries live in a folder named by the toolchain (see key), so a
// different Go version, GOROOT or build context never reuses them.
//
// The checks always see packages read from export data: on a miss the
// package is type-checked from source (go/importer's "source" importer, in
// a universe of its own), written as export data, and read back from those
// bytes like a cache hit would be. A cold and a warm cache therefore give
// the same verdicts.

// entryFormat opens every cache entry and is part of the key; a change of
// the entry layout or of what an entry holds bumps it.
const entryFormat = "acpgen-typecheck-std-1"

// CacheSub is the folder of the type-check's entries inside the schema
// cache.
const CacheSub = "typecheck"

// toolchain is what the standard library's type information depends on.
type toolchain struct {
	Version     string // runtime.Version() of the acpgen binary
	GOROOT      string // where the source importer reads the standard library
	RootVersion string // GOROOT/VERSION's first line, if any (an in-place upgrade)
	// The source importer's build context (build.Default).
	GOOS, GOARCH, Compiler string
	Cgo                    bool
	Tags                   []string // build, tool and release tags
}

// currentToolchain describes the running binary and build.Default, which
// the source importer uses.
func currentToolchain() toolchain {
	ctx := build.Default
	tc := toolchain{
		Version: runtime.Version(), GOROOT: ctx.GOROOT,
		GOOS: ctx.GOOS, GOARCH: ctx.GOARCH, Compiler: ctx.Compiler, Cgo: ctx.CgoEnabled,
	}
	tc.Tags = append(tc.Tags, ctx.BuildTags...)
	tc.Tags = append(tc.Tags, ctx.ToolTags...)
	tc.Tags = append(tc.Tags, ctx.ReleaseTags...)
	if ctx.GOROOT != "" {
		// A release has VERSION; a development tree VERSION.cache.
		for _, name := range []string{"VERSION", "VERSION.cache"} {
			if b, err := os.ReadFile(filepath.Join(ctx.GOROOT, name)); err == nil {
				tc.RootVersion, _, _ = strings.Cut(string(b), "\n")
				break
			}
		}
	}
	return tc
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// key names the cache folder of tc's entries: the Go version, readable,
// then a hash of everything in tc and of the entry format.
func (tc toolchain) key() string {
	h := sha256.New()
	for _, s := range []string{entryFormat, tc.Version, tc.GOROOT, tc.RootVersion, tc.GOOS, tc.GOARCH, tc.Compiler,
		fmt.Sprint(tc.Cgo), strings.Join(tc.Tags, ",")} {
		fmt.Fprintf(h, "%d:%s;", len(s), s)
	}
	v := unsafeName.ReplaceAllString(tc.Version, "_")
	if len(v) > 40 {
		v = v[:40]
	}
	if v == "" {
		v = "go"
	}
	return "std-" + v + "-" + hex.EncodeToString(h.Sum(nil))[:20]
}

// stdImporter imports standard library packages from export data: the
// cache's, or made on a miss from GOROOT's sources and then cached.
type stdImporter struct {
	fset *token.FileSet
	dir  string // this toolchain's cache folder; "" for none
	read bool   // whether entries are read (false after a broken read)
	pkgs map[string]*types.Package

	srcFset *token.FileSet
	src     types.Importer // GOROOT's sources, made on the first miss

	// broken is set when an entry that passed its checksum could not be
	// read: pkgs may then hold half-read packages, so the check is run
	// again on a fresh universe without reading the cache.
	broken error

	hits, misses int // for tests
}

func newStdImporter(fset *token.FileSet, dir string, read bool) *stdImporter {
	return &stdImporter{fset: fset, dir: dir, read: read, pkgs: map[string]*types.Package{}}
}

// file is the cache entry of the package path.
func (s *stdImporter) file(path string) string {
	return filepath.Join(s.dir, url.PathEscape(path)+".x")
}

func (s *stdImporter) Import(path string) (*types.Package, error) {
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	if pkg := s.pkgs[path]; pkg != nil && pkg.Complete() {
		return pkg, nil
	}
	if s.dir != "" && s.read {
		if data, err := readEntry(s.file(path), path); err == nil {
			pkg, err := gcexportdata.Read(bytes.NewReader(data), s.fset, s.pkgs, path)
			if err != nil {
				s.broken = fmt.Errorf("typecheck: cache entry %s: %w", s.file(path), err)
				return nil, s.broken
			}
			s.hits++
			return pkg, nil
		}
	}
	s.misses++
	data, err := s.export(path)
	if err != nil {
		return nil, err
	}
	pkg, err := gcexportdata.Read(bytes.NewReader(data), s.fset, s.pkgs, path)
	if err != nil {
		return nil, fmt.Errorf("typecheck: reading back the export data of %s: %w", path, err)
	}
	if s.dir != "" {
		// Best effort: a cache that cannot be written only costs time.
		_ = writeEntry(s.file(path), path, data)
	}
	return pkg, nil
}

// release drops the packages checked from source after a miss: what the
// checks use was read back from their export data.
func (s *stdImporter) release() {
	s.src, s.srcFset = nil, nil
}

// export type-checks the package path from GOROOT's sources (function
// bodies skipped) and returns its export data.
func (s *stdImporter) export(path string) ([]byte, error) {
	if s.src == nil {
		s.srcFset = token.NewFileSet()
		s.src = importer.ForCompiler(s.srcFset, "source", nil)
	}
	pkg, err := s.src.Import(path)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := gcexportdata.Write(&buf, s.srcFset, pkg); err != nil {
		return nil, fmt.Errorf("typecheck: export data of %s: %w", path, err)
	}
	return buf.Bytes(), nil
}

// An entry is one header line, "<format> <import path> <sha256 of the
// rest>", then the export data.

var errEntry = errors.New("not a valid cache entry")

// readEntry returns the export data of an entry, or an error when it is
// missing, unreadable, for another package or corrupt.
func readEntry(file, path string) ([]byte, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	head, data, ok := bytes.Cut(b, []byte("\n"))
	f := strings.Fields(string(head))
	if !ok || len(f) != 3 || f[0] != entryFormat || f[1] != path {
		return nil, errEntry
	}
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != f[2] || len(data) == 0 || data[0] != 'i' {
		return nil, errEntry
	}
	return data, nil
}

// writeEntry replaces the entry file atomically: a temporary file beside
// it, renamed over it, so that a concurrent reader sees the old entry, the
// new one or none.
func writeEntry(file, path string, data []byte) error {
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	entry := fmt.Appendf(nil, "%s %s %s\n", entryFormat, path, hex.EncodeToString(sum[:]))
	return atomicfile.Write(file, append(entry, data...), 0o600)
}

// cacheDir is the folder of this toolchain's entries, "" when acpgen has
// no cache folder.
func cacheDir() string {
	cache, err := source.CacheDir("")
	if err != nil {
		return ""
	}
	return filepath.Join(cache, CacheSub, currentToolchain().key())
}
