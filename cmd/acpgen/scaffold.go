package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/mod/modfile"

	"github.com/acpgen/acpgen/generator"
	"github.com/acpgen/acpgen/generator/config"
	"github.com/acpgen/acpgen/templates"
)

const (
	acpgenModule = "github.com/acpgen/acpgen"
	// defaultImport is this repository's own generated package (v1 stable).
	defaultImport = acpgenModule + "/gen/acp"
	// starterGoVersion is acpgen's own go directive: a starter requires
	// acpgen, so it cannot declare an older language version.
	starterGoVersion = "1.26.0"
)

func scaffoldCommand() *cli.Command {
	sub := make([]*cli.Command, 0, len(templates.Kinds()))
	for _, kind := range templates.Kinds() {
		sub = append(sub, &cli.Command{
			Name:  kind,
			Usage: "write a starter ACP " + kind + " on stdio to --out",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "out", Required: true, Usage: "folder to write to; it must not exist or be empty (nothing is ever overwritten)"},
				&cli.StringFlag{Name: "module", Usage: "make the starter a module of its own with this module path (default: join the module that holds --out, else a new module named after the folder)"},
				&cli.StringFlag{Name: "import", Usage: "import path of the generated ACP package to build on (default: the package the nearest " + config.FileName + " (the current folder, else above it within the module) generates, its stable channel or else its first v1 channel; the starters speak protocol v1; without one " + defaultImport + ")"},
				&cli.BoolFlag{Name: "unstable", Usage: "build on the unstable channel instead (the configuration's unstable channel; without one " + defaultImport + "/unstable)"},
				&cli.StringFlag{Name: "acpgen-version", Usage: "version of " + acpgenModule + " a new go.mod requires (default: this acpgen's own version, or the replacement folder it was built from; else what the module in reach uses)"},
				&cli.StringFlag{Name: "replace", Usage: "folder that a new go.mod replaces " + acpgenModule + " with (a local checkout)"},
				&cli.BoolFlag{Name: "http", Usage: "agent only: serve ACP over the network at http://ADDR/acp (WebSocket and Streamable HTTP) instead of stdio"},
			},
			Action: func(c *cli.Context) error {
				if c.NArg() > 0 {
					return usageErrorf(c, "scaffold %s takes no arguments, got %q", kind, c.Args().Slice())
				}
				return scaffold(c, kind)
			},
		})
	}
	return &cli.Command{
		Name:  "scaffold",
		Usage: "write a compiling starter ACP agent or client built on a generated package",
		Description: "The starter is package main: a handler type that embeds the generated Unimplemented handler\n" +
			"and a main that serves ACP on stdin/stdout (agent) or runs an agent as a subprocess (client).\n" +
			"When --out lies inside an existing Go module and --module is not given, the starter joins that\n" +
			"module (which must require " + acpgenModule + "); otherwise it gets its own go.mod, which requires\n" +
			"acpgen as this acpgen was installed (its version, or a replace directive for its folder).",
		Subcommands: sub,
	}
}

func scaffold(c *cli.Context, kind string) error {
	out, err := filepath.Abs(c.String("out"))
	if err != nil {
		return err
	}
	if err := checkEmpty(out); err != nil {
		return err
	}
	d := templates.Data{Name: filepath.Base(out), GoVersion: starterGoVersion, HTTP: c.Bool("http")}
	if d.HTTP && kind != "agent" {
		return fmt.Errorf("--http applies to agents: a client dials with acphttp.Dial")
	}
	if !regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`).MatchString(d.Name) {
		return fmt.Errorf("--out %s: the folder's name %q is not a usable program name (letters, digits, '.', '_', '-')", c.String("out"), d.Name)
	}
	pkg, err := importPath(c)
	if err != nil {
		return err
	}
	d.Import = pkg.path
	if !validPath(d.Import) {
		return fmt.Errorf("--import %q is not an import path", d.Import)
	}
	parent := enclosingModule(filepath.Dir(out))
	if d.Module = c.String("module"); d.Module == "" && parent == "" {
		d.Module = strings.ToLower(d.Name)
	}
	if d.Module != "" {
		if !validPath(d.Module) {
			return fmt.Errorf("--module %q is not a module path", d.Module)
		}
		req, err := acpgenRequirement(c)
		if err != nil {
			return err
		}
		if req.Version != "" {
			d.Require = append(d.Require, req)
		}
		// A package generated inside a local module: the starter requires
		// that module from its folder.
		if pkg.module != "" && pkg.module != acpgenModule {
			d.Require = append(d.Require, templates.Requirement{Path: pkg.module, Version: anyVersion, Replace: goModString(pkg.moduleDir)})
		}
	} else if c.IsSet("acpgen-version") || c.IsSet("replace") {
		return fmt.Errorf("--acpgen-version and --replace apply to a new go.mod, but %s joins the module at %s (give --module for a module of its own)", out, parent)
	}

	files, err := templates.Render(kind, d)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
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
	printNextSteps(c.App.Writer, kind, out, parent, d, pkg)
	return nil
}

// anyVersion is the version a go.mod requires of a module that a replace
// directive provides: any version does, since the replacement wins.
const anyVersion = "v0.0.0"

// generatedPackage is the package a starter builds on.
type generatedPackage struct {
	path string
	// from names the configuration it was taken from, "" for a flag or
	// the built-in default.
	from string
	// module and moduleDir are the local module that holds the package
	// when it came from a configuration.
	module, moduleDir string
}

// importPath is the package to build on: --import, else the package the
// nearest configuration (config.Find) generates (its stable channel, or the
// first v1 channel; its unstable channel with --unstable), else this
// repository's own generated package.
func importPath(c *cli.Context) (generatedPackage, error) {
	if p := c.String("import"); p != "" {
		if c.Bool("unstable") {
			return generatedPackage{}, errors.New("--unstable chooses the default --import; give one or the other")
		}
		return generatedPackage{path: p}, nil
	}
	want := "stable"
	if c.Bool("unstable") {
		want = "unstable"
	}
	r, err := config.Open("", config.Overrides{})
	if errors.Is(err, config.ErrNoConfig) {
		p := defaultImport
		if want == "unstable" {
			p += "/unstable"
		}
		return generatedPackage{path: p}, nil
	}
	if err != nil {
		return generatedPackage{}, fmt.Errorf("%w\n(scaffold builds on the package this configuration generates; give --import to choose another)", err)
	}
	chans := r.Config.Channels
	i := slices.IndexFunc(chans, func(ch generator.Channel) bool { return ch.Name == want })
	if i < 0 && want == "unstable" {
		return generatedPackage{}, fmt.Errorf("--unstable: %s generates no unstable channel; give --import to choose the package", r.File)
	}
	if i < 0 {
		// The starters are written for protocol v1: the first v1 channel.
		i = slices.IndexFunc(chans, func(ch generator.Channel) bool { return ch.Protocol == 1 })
	}
	if i < 0 {
		return generatedPackage{}, fmt.Errorf("%s generates only v2 channels: scaffold writes protocol v1 starters (the v2 draft's prompt turn differs); add a stable channel, or give --import with a v1 package", r.File)
	}
	pkg := generatedPackage{path: chans[i].ImportPath, from: r.File}
	if dir := enclosingModule(r.Root); dir != "" {
		if f := readGoMod(dir); f != nil && f.Module != nil {
			if m := f.Module.Mod.Path; pkg.path == m || strings.HasPrefix(pkg.path, m+"/") {
				pkg.module, pkg.moduleDir = m, dir
			}
		}
	}
	return pkg, nil
}

// acpgenRequirement is how a new go.mod requires acpgen, so that the
// starter builds on the same acpgen as this command: the flags say, else
// this binary's own version, replacement folder or checkout (ownInstall), else the
// module in reach of the current folder (acpgen's own checkout, or a module
// that requires or replaces acpgen). A zero Version means nothing tells.
func acpgenRequirement(c *cli.Context) (templates.Requirement, error) {
	req := templates.Requirement{Path: acpgenModule, Version: c.String("acpgen-version")}
	if r := c.String("replace"); r != "" {
		dir, err := filepath.Abs(r)
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
	in := ownInstall()
	switch {
	case in.Replace != "":
		dir := in.Replace
		if !filepath.IsAbs(dir) {
			// Relative to the main module, the one `go tool` and `go run`
			// ran in.
			mod := enclosingModule(cwd)
			if mod == "" {
				return req, fmt.Errorf("this acpgen was built with %s replaced by %s, relative to a module that is not in reach of the current folder: give --replace DIR", acpgenModule, dir)
			}
			dir = filepath.Join(mod, dir)
		}
		req.Replace = goModString(dir)
		req.Version = in.Version
		if req.Version == "" {
			req.Version = anyVersion
		}
		return req, nil
	case in.Version != "":
		req.Version = in.Version
		return req, nil
	case in.Checkout != "":
		req.Version, req.Replace = anyVersion, goModString(in.Checkout)
		return req, nil
	}
	return requirementInReach(cwd), nil
}

// requirementInReach is how the module at or above dir has acpgen: as its
// own module (a checkout of acpgen), through a replace directive, or at a
// required version. A zero Version means it has none of these.
func requirementInReach(dir string) templates.Requirement {
	req := templates.Requirement{Path: acpgenModule}
	mod := enclosingModule(dir)
	f := readGoMod(mod)
	if f == nil {
		return req
	}
	if f.Module != nil && f.Module.Mod.Path == acpgenModule {
		req.Version, req.Replace = anyVersion, goModString(mod)
		return req
	}
	for _, r := range f.Require {
		if r.Mod.Path == acpgenModule {
			req.Version = r.Mod.Version
		}
	}
	for _, r := range f.Replace {
		if r.Old.Path != acpgenModule || (r.Old.Version != "" && r.Old.Version != req.Version) {
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

// readGoMod parses the go.mod in dir, nil when there is none or it does not
// parse (the go command reports that better).
func readGoMod(dir string) *modfile.File {
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

// requiresAcpgen reports whether the module in dir is acpgen or requires it.
func requiresAcpgen(dir string) bool {
	f := readGoMod(dir)
	if f == nil {
		return false
	}
	if f.Module != nil && f.Module.Mod.Path == acpgenModule {
		return true
	}
	return slices.ContainsFunc(f.Require, func(r *modfile.Require) bool { return r.Mod.Path == acpgenModule })
}

// printNextSteps prints what was written and the commands that build it,
// runnable from the current folder.
func printNextSteps(w io.Writer, kind, out, parent string, d templates.Data, pkg generatedPackage) {
	where := fromHere(out)
	names := make([]string, 0, 5)
	for _, n := range []string{".gitignore", kind + ".go", kind + "_test.go", "go.mod", "main.go"} {
		if _, err := os.Stat(filepath.Join(out, n)); err == nil {
			names = append(names, n)
		}
	}
	fmt.Fprintf(w, "wrote a starter ACP %s in %s (%s) on %s", kind, where, strings.Join(names, ", "), d.Import)
	if pkg.from != "" {
		fmt.Fprintf(w, " (from %s)", pkg.from)
	}
	fmt.Fprintln(w)
	if d.Module == "" {
		fmt.Fprintf(w, "it joins the module at %s\n", fromHere(parent))
	}
	for _, r := range d.Require {
		if r.Replace != "" {
			fmt.Fprintf(w, "its go.mod replaces %s with %s\n", r.Path, r.Replace)
		}
	}
	fmt.Fprintln(w, "next:")
	if where != "." {
		fmt.Fprintf(w, "  cd %s\n", where)
	}
	switch {
	case d.Module == "" && !requiresAcpgen(parent):
		v := ownInstall().Version
		if v == "" {
			v = "latest"
		}
		fmt.Fprintf(w, "  go get %s@%s\n", acpgenModule, v)
	case d.Module != "" && len(d.Require) == 0:
		fmt.Fprintf(w, "  go get %s@latest\n  go mod tidy\n", acpgenModule)
	case d.Module != "":
		fmt.Fprintf(w, "  go mod tidy\n")
	}
	bin := templates.BinDir + "/" + d.Name // ignored by the starter's .gitignore
	if kind == "agent" {
		fmt.Fprintf(w, "  go build -o %s . && ./%s   # speaks ACP on stdin/stdout\n", bin, bin)
	} else {
		fmt.Fprintf(w, "  go build -o %s . && ./%s -prompt 'Hello' AGENT [ARGS...]\n", bin, bin)
	}
}

// fromHere spells a folder for a command run in the current folder: "." for
// it, a relative path below it, else the absolute path.
func fromHere(dir string) string {
	cwd, err := os.Getwd()
	if err != nil {
		return dir
	}
	rel, err := filepath.Rel(cwd, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return dir
	}
	return rel
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
