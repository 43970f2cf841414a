package scaffold

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/acpgen/acpgen/generator"
	"github.com/acpgen/acpgen/generator/config"
	"github.com/acpgen/acpgen/templates"
)

// Package is the generated package a starter builds on.
type Package struct {
	Path string
	// From names the configuration it was taken from, "" for --import or
	// the built-in default.
	From string
	// Module and ModuleDir are the local module that holds the package
	// when it came from a configuration.
	Module, ModuleDir string
}

// importPath is the package to build on: --import, else the package the
// nearest configuration (config.Find) generates (its stable channel, or the
// first v1 channel; its unstable channel with --unstable or for a proxy),
// else this repository's own generated package.
func importPath(o Options) (Package, error) {
	if o.Import != "" {
		if o.Unstable {
			return Package{}, errors.New("--unstable chooses the default --import; give one or the other")
		}
		return Package{Path: o.Import}, nil
	}
	want := "stable"
	if o.Unstable || o.Kind == "proxy" {
		// The proxy starter needs what only the unstable channel carries:
		// Proxy Chains, and the usage it counts.
		want = "unstable"
	}
	r, err := config.Open("", config.Overrides{})
	if errors.Is(err, config.ErrNoConfig) {
		p := DefaultImport
		if want == "unstable" {
			p += "/unstable"
		}
		return Package{Path: p}, nil
	}
	if err != nil {
		return Package{}, fmt.Errorf("%w\n(scaffold builds on the package this configuration generates; give --import to choose another)", err)
	}
	pkg, err := configuredPackage(r, want)
	if err != nil && o.Kind == "proxy" && !o.Unstable {
		err = fmt.Errorf("the proxy starter builds on an unstable channel (Proxy Chains, token usage), but %s generates none: add {\"name\": \"unstable\"} to its channels and generate, or give --import %s/unstable", r.File, DefaultImport)
	}
	return pkg, err
}

// configuredPackage is the package r generates for channel want.
func configuredPackage(r *config.Resolved, want string) (Package, error) {
	chans := r.Config.Channels
	i := slices.IndexFunc(chans, func(ch generator.Channel) bool { return ch.Name == want })
	if i < 0 && want == "unstable" {
		return Package{}, fmt.Errorf("--unstable: %s generates no unstable channel; give --import to choose the package", r.File)
	}
	if i < 0 {
		// The starters are written for protocol v1: the first v1 channel.
		i = slices.IndexFunc(chans, func(ch generator.Channel) bool { return ch.Protocol == 1 })
	}
	if i < 0 {
		return Package{}, fmt.Errorf("%s generates only v2 channels: scaffold writes protocol v1 starters (the v2 draft's prompt turn differs); add a stable channel, or give --import with a v1 package", r.File)
	}
	pkg := Package{Path: chans[i].ImportPath, From: r.File}
	if dir := enclosingModule(r.Root); dir != "" {
		if f := config.ReadGoMod(dir); f != nil && f.Module != nil {
			if m := f.Module.Mod.Path; pkg.Path == m || strings.HasPrefix(pkg.Path, m+"/") {
				pkg.Module, pkg.ModuleDir = m, dir
			}
		}
	}
	return pkg, nil
}

// acpgenRequirement is how a new go.mod requires acpgen, so that the
// starter builds on the same acpgen as the command: the options say, else
// the binary's own version, replacement folder or checkout (o.Install), else
// the module in reach of the current folder (acpgen's own checkout, or a
// module that requires or replaces acpgen). A zero Version means nothing
// tells.
func acpgenRequirement(o Options) (templates.Requirement, error) {
	req := templates.Requirement{Path: generator.Module, Version: o.AcpgenVersion}
	if o.Replace != "" {
		dir, err := filepath.Abs(o.Replace)
		if err != nil {
			return req, err
		}
		req.Replace = goModString(dir)
		if req.Version == "" {
			req.Version = anyVersion
		}
		return req, nil
	}
	if req.Version != "" {
		return req, nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return req, err
	}
	if in := o.Install; in.Replace != "" || in.Version != "" || in.Checkout != "" {
		return installRequirement(req, in, cwd)
	}
	return requirementInReach(cwd), nil
}

// installRequirement requires acpgen as in says the binary has it.
func installRequirement(req templates.Requirement, in Install, cwd string) (templates.Requirement, error) {
	switch {
	case in.Replace != "":
		dir := in.Replace
		if !filepath.IsAbs(dir) {
			// Relative to the main module, the one `go tool` and `go run`
			// ran in.
			mod := enclosingModule(cwd)
			if mod == "" {
				return req, fmt.Errorf("this acpgen was built with %s replaced by %s, relative to a module that is not in reach of the current folder: give --replace DIR", generator.Module, dir)
			}
			dir = filepath.Join(mod, dir)
		}
		req.Replace = goModString(dir)
		req.Version = in.Version
		if req.Version == "" {
			req.Version = anyVersion
		}
	case in.Version != "":
		req.Version = in.Version
	default:
		req.Version, req.Replace = anyVersion, goModString(in.Checkout)
	}
	return req, nil
}

// requirementInReach is how the module at or above dir has acpgen: as its
// own module (a checkout of acpgen), through a replace directive, or at a
// required version. A zero Version means it has none of these.
func requirementInReach(dir string) templates.Requirement {
	req := templates.Requirement{Path: generator.Module}
	mod := enclosingModule(dir)
	f := config.ReadGoMod(mod)
	if f == nil {
		return req
	}
	if f.Module != nil && f.Module.Mod.Path == generator.Module {
		req.Version, req.Replace = anyVersion, goModString(mod)
		return req
	}
	for _, r := range f.Require {
		if r.Mod.Path == generator.Module {
			req.Version = r.Mod.Version
		}
	}
	for _, r := range f.Replace {
		if r.Old.Path != generator.Module || (r.Old.Version != "" && r.Old.Version != req.Version) {
			continue
		}
		if r.New.Version != "" {
			req.Replace = r.New.Path + " " + r.New.Version
		} else if filepath.IsAbs(r.New.Path) {
			req.Replace = goModString(r.New.Path)
		} else {
			req.Replace = goModString(filepath.Join(mod, r.New.Path))
		}
		if req.Version == "" {
			req.Version = anyVersion
		}
	}
	return req
}

// requiresAcpgen reports whether the module in dir is acpgen or requires it.
func requiresAcpgen(dir string) bool {
	f := config.ReadGoMod(dir)
	if f == nil {
		return false
	}
	if f.Module != nil && f.Module.Mod.Path == generator.Module {
		return true
	}
	return slices.ContainsFunc(f.Require, func(r *modfile.Require) bool { return r.Mod.Path == generator.Module })
}
