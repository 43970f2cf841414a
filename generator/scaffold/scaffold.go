// Package scaffold writes the starter agents, clients and proxies of
// `acpgen scaffold`: which generated package a starter builds on, whether it joins
// the module around it or gets a go.mod of its own, and how that go.mod
// requires acpgen.
package scaffold

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/acpgen/acpgen/generator"
	"github.com/acpgen/acpgen/generator/config"
	"github.com/acpgen/acpgen/templates"
)

const (
	// DefaultImport is this repository's own generated package (v1 stable).
	DefaultImport = generator.Module + "/gen/acp"
	// GoVersion is acpgen's own go directive: a starter requires acpgen, so
	// it cannot declare an older language version.
	GoVersion = "1.26.0"
	// anyVersion is the version a go.mod requires of a module that a replace
	// directive provides: any version does, since the replacement wins.
	anyVersion = "v0.0.0"
)

// Install says how the running acpgen was obtained: its module version (""
// for a build inside acpgen's own checkout) and, when a replace directive
// provided it, the replacement folder.
type Install struct {
	Version string
	Replace string // a local folder, "" unless replaced by one
	// Checkout is the checkout of acpgen the binary was built from as the
	// main module, when its source is still there; "" otherwise.
	Checkout string
}

// Options are one starter's inputs; each names the flag of `acpgen
// scaffold` it comes from.
type Options struct {
	Kind          string // templates.Kinds
	Out           string // --out, as given
	Module        string // --module
	Import        string // --import
	Unstable      bool   // --unstable
	AcpgenVersion string // --acpgen-version
	Replace       string // --replace
	HTTP          bool   // --http
	Store         string // --store: "", or a key of StoreDefaults
	MCP           bool   // --mcp
	Install       Install
}

// StoreDefaults are the --store choices and the default each gives the
// starter's own -store flag (store.Open's spec).
var StoreDefaults = map[string]string{
	"sqlite":   "sqlite:sessions.db",
	"postgres": "postgres://localhost/acp",
	"memory":   "memory",
}

// Starter is a starter written.
type Starter struct {
	Kind    string
	Out     string // absolute
	Parent  string // the folder of the module it joins; "" when it has its own
	Data    templates.Data
	Package Package
	Install Install
}

// Write writes a starter into o.Out, which must not exist or be empty; no
// file is ever overwritten.
func Write(o Options) (*Starter, error) {
	out, err := filepath.Abs(o.Out)
	if err != nil {
		return nil, err
	}
	if err := checkEmpty(out); err != nil {
		return nil, err
	}
	st := &Starter{Kind: o.Kind, Out: out, Install: o.Install}
	st.Data = templates.Data{Name: filepath.Base(out), GoVersion: GoVersion, HTTP: o.HTTP}
	if st.Data.HTTP && o.Kind == "proxy" {
		return nil, fmt.Errorf("--http applies to agents and clients")
	}
	if o.Store != "" {
		spec, ok := StoreDefaults[o.Store]
		switch {
		case o.Kind != "agent":
			return nil, fmt.Errorf("--store applies to agents")
		case !ok:
			return nil, fmt.Errorf("--store %q: want sqlite, postgres or memory", o.Store)
		}
		st.Data.Store = spec
	}
	if o.MCP {
		if o.Kind != "agent" {
			return nil, fmt.Errorf("--mcp applies to agents")
		}
		// mcp/message is the unstable channel's.
		o.Unstable = o.Unstable || o.Import == ""
		st.Data.MCP = true
	}
	if !regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`).MatchString(st.Data.Name) {
		return nil, fmt.Errorf("--out %s: the folder's name %q is not a usable program name (letters, digits, '.', '_', '-')", o.Out, st.Data.Name)
	}
	if st.Package, err = importPath(o); err != nil {
		return nil, err
	}
	st.Data.Import = st.Package.Path
	if !validPath(st.Data.Import) {
		return nil, fmt.Errorf("--import %q is not an import path", st.Data.Import)
	}
	st.Parent = enclosingModule(filepath.Dir(out))
	if err := st.moduleData(o); err != nil {
		return nil, err
	}
	files, err := templates.Render(o.Kind, st.Data)
	if err != nil {
		return nil, err
	}
	return st, writeNew(out, files)
}

// moduleData decides the starter's module: its own (with the requirements
// of a new go.mod) or the one around it.
func (st *Starter) moduleData(o Options) error {
	d := &st.Data
	if d.Module = o.Module; d.Module == "" && st.Parent == "" {
		d.Module = strings.ToLower(d.Name)
	}
	if d.Module == "" {
		if o.AcpgenVersion != "" || o.Replace != "" {
			return fmt.Errorf("--acpgen-version and --replace apply to a new go.mod, but %s joins the module at %s (give --module for a module of its own)", st.Out, st.Parent)
		}
		return nil
	}
	if !validPath(d.Module) {
		return fmt.Errorf("--module %q is not a module path", d.Module)
	}
	req, err := acpgenRequirement(o)
	if err != nil {
		return err
	}
	if req.Version != "" {
		d.Require = append(d.Require, req)
		if d.Store != "" {
			d.Require = append(d.Require, nestedRequirement(req, StoreModule, "store"))
		}
		if d.MCP {
			d.Require = append(d.Require, nestedRequirement(req, MCPModule, "mcp"))
		}
	}
	// A package generated inside a local module: the starter requires
	// that module from its folder.
	if pkg := st.Package; pkg.Module != "" && pkg.Module != generator.Module {
		d.Require = append(d.Require, templates.Requirement{Path: pkg.Module, Version: anyVersion, Replace: goModString(pkg.ModuleDir)})
	}
	return nil
}

// nestedRequirement is the requirement of acpgen's nested module (in the
// folder dir of a checkout) beside acpgen's req: the same version, and its
// folder in a replaced checkout.
func nestedRequirement(req templates.Requirement, module, dir string) templates.Requirement {
	r := templates.Requirement{Path: module, Version: req.Version}
	if req.Replace != "" && !strings.Contains(req.Replace, " ") {
		checkout, err := strconv.Unquote(req.Replace)
		if err != nil {
			checkout = req.Replace
		}
		r.Replace = goModString(filepath.Join(checkout, dir))
	}
	return r
}

// The nested modules a starter may require besides acpgen: the session
// stores (--store) and MCP over ACP (--mcp).
const (
	StoreModule = generator.Module + "/store"
	MCPModule   = generator.Module + "/mcp"
)

// writeNew writes files into out, never replacing one.
func writeNew(out string, files map[string][]byte) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		// O_EXCL: never overwrite, even if the folder filled up meanwhile.
		f, err := os.OpenFile(filepath.Join(out, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		_, err = f.Write(files[name])
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// checkEmpty accepts a folder that does not exist or is empty.
func checkEmpty(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case len(entries) > 0:
		return fmt.Errorf("--out %s is not empty: scaffold never overwrites; choose a new folder", dir)
	}
	return nil
}

// enclosingModule returns the folder of the nearest go.mod at or above dir
// (dir need not exist yet), or "".
func enclosingModule(dir string) string {
	_, modDir := config.FindModule(dir)
	return modDir
}

// validPath is a loose check of a module or import path: enough to keep
// templates and go.mod well-formed; the go command checks the rest.
func validPath(p string) bool {
	return regexp.MustCompile(`^[A-Za-z0-9._~+-]+(/[A-Za-z0-9._~+-]+)*$`).MatchString(p)
}

// goModString quotes a go.mod token when it needs it.
func goModString(s string) string {
	if strings.ContainsAny(s, " \t\"'`\\") {
		return strconv.Quote(s)
	}
	return s
}
