package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/acpgen/acpgen/generator/config"
	"github.com/acpgen/acpgen/generator/scaffold"
	"github.com/acpgen/acpgen/generator/source"
	"github.com/urfave/cli/v2"
	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
)

// ownInstall reads the build information. acpgen is the main module under
// `go install` and `go run` in its checkout, and a dependency under
// `go tool` in another module.
func ownInstall() scaffold.Install {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return scaffold.Install{}
	}
	mods := append([]*debug.Module{&bi.Main}, bi.Deps...)
	for _, m := range mods {
		if m.Path != acpgenModule {
			continue
		}
		in := scaffold.Install{Version: m.Version}
		if r := m.Replace; r != nil {
			if r.Version == "" || r.Version == "(devel)" {
				in.Replace = r.Path
			} else {
				in.Version = r.Version
			}
		}
		if m == &bi.Main && (!strings.HasPrefix(in.Version, "v") || module.IsPseudoVersion(in.Version)) {
			// A local build: its version, if any, was stamped from the
			// checkout's VCS state and names nothing a proxy serves.
			in.Version, in.Checkout = "", checkoutOf()
		}
		if !strings.HasPrefix(in.Version, "v") {
			in.Version = "" // "(devel)"
		}
		return in
	}
	return scaffold.Install{}
}

// checkoutOf finds the checkout of a local build; tests replace it.
var checkoutOf = sourceCheckout

// sourceCheckout is the folder of the module this file was compiled from, as
// the compiler recorded its path (absent under -trimpath), when it is still
// a checkout of acpgen.
func sourceCheckout() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	dir := filepath.Dir(filepath.Dir(filepath.Dir(file))) // cmd/acpgen/info.go
	if f := config.ReadGoMod(dir); f == nil || f.Module == nil || f.Module.Mod.Path != acpgenModule {
		return ""
	}
	return dir
}

func buildVersion() string {
	in := ownInstall()
	switch {
	case in.Replace != "":
		return "(replaced by " + in.Replace + ")"
	case in.Version == "":
		return "(devel)"
	}
	return in.Version
}

func init() {
	cli.VersionPrinter = func(c *cli.Context) { printVersion(c.App.Writer, "") }
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print acpgen's version, the Go version it was built with, and the release the configuration pins",
		Flags: []cli.Flag{configFlag()},
		Action: func(c *cli.Context) error {
			printVersion(c.App.Writer, c.String("config"))
			return nil
		},
	}
}

// printVersion prints one line per fact. The lock line appears when a
// configuration is found and its lock is readable.
func printVersion(w io.Writer, explicit string) {
	fmt.Fprintf(w, "acpgen %s %s\n", buildVersion(), runtime.Version())
	r, err := config.Open(explicit, config.Overrides{})
	if err != nil {
		return
	}
	if l, err := source.ReadLock(r.LockPath()); err == nil {
		fmt.Fprintf(w, "schema %s@%s (%s, %s)\n", l.Package, l.Version, r.LockPath(), l.Integrity)
	} else {
		fmt.Fprintf(w, "schema: %s: %v\n", r.File, err)
	}
}

// invocation is how the user runs acpgen from the current folder, for
// hints: `go tool acpgen` where the module lists acpgen as a tool, `go run
// ./cmd/acpgen` in acpgen's checkout, else `acpgen`.
func invocation() string {
	mod, dir := config.FindModule(".")
	if mod == acpgenModule {
		return "go run ./cmd/acpgen"
	}
	if f := config.ReadGoMod(dir); f != nil && listsAcpgenTool(f) {
		return "go tool acpgen"
	}
	return "acpgen"
}

// listsAcpgenTool reports whether a go.mod lists acpgen as a tool, on its own
// line or in a tool block.
func listsAcpgenTool(f *modfile.File) bool {
	return slices.ContainsFunc(f.Tool, func(t *modfile.Tool) bool { return t.Path == acpgenModule+"/cmd/acpgen" })
}

// rerun is the command line the user ran, as invocation() spells it,
// without the flags named in drop.
func rerun(drop ...string) string {
	args := []string{invocation()}
	for _, a := range os.Args[1:] {
		if !slices.Contains(drop, a) {
			args = append(args, a)
		}
	}
	return strings.Join(args, " ")
}
