package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/acpgen/acpgen/templates"
	"github.com/urfave/cli/v2"
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
				&cli.StringFlag{Name: "import", Usage: "import path of the generated ACP package to build on (default: " + defaultImport + ", or its /unstable with --unstable)"},
				&cli.BoolFlag{Name: "unstable", Usage: "build on the unstable channel (" + defaultImport + "/unstable) instead of v1 stable"},
				&cli.StringFlag{Name: "acpgen-version", Usage: "version of " + acpgenModule + " a new go.mod requires (default: this acpgen's version when it has one)"},
				&cli.StringFlag{Name: "replace", Usage: "folder that a new go.mod replaces " + acpgenModule + " with (a local checkout)"},
			},
			Action: func(c *cli.Context) error {
				if c.NArg() > 0 {
					return fmt.Errorf("scaffold %s takes no arguments, got %q", kind, c.Args().Slice())
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
			"module (which must require " + acpgenModule + "); otherwise it gets its own go.mod.",
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
	d := templates.Data{Name: filepath.Base(out), Import: c.String("import"), GoVersion: starterGoVersion}
	if !regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`).MatchString(d.Name) {
		return fmt.Errorf("--out %s: the folder's name %q is not a usable program name (letters, digits, '.', '_', '-')", c.String("out"), d.Name)
	}
	if d.Import == "" {
		d.Import = defaultImport
		if c.Bool("unstable") {
			d.Import += "/unstable"
		}
	} else if c.Bool("unstable") {
		return errors.New("--unstable chooses the default --import; give one or the other")
	}
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
		d.AcpgenVersion = c.String("acpgen-version")
		if d.AcpgenVersion == "" {
			d.AcpgenVersion = ownVersion()
		}
		if r := c.String("replace"); r != "" {
			if r, err = filepath.Abs(r); err != nil {
				return err
			}
			d.Replace = goModString(r)
			if d.AcpgenVersion == "" {
				d.AcpgenVersion = "v0.0.0" // any version: the replacement provides it
			}
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

	w := c.App.Writer
	fmt.Fprintf(w, "wrote a starter ACP %s in %s (%s) on %s\n", kind, out, strings.Join(names, ", "), d.Import)
	switch {
	case d.Module == "":
		fmt.Fprintf(w, "it joins the module at %s; if that module does not require %s yet:\n  go get %s@latest\n", parent, acpgenModule, acpgenModule)
	case d.AcpgenVersion == "":
		fmt.Fprintf(w, "next:\n  cd %s\n  go get %s@latest\n  go mod tidy\n", out, acpgenModule)
	default:
		fmt.Fprintf(w, "next:\n  cd %s\n  go mod tidy\n", out)
	}
	if kind == "agent" {
		fmt.Fprintf(w, "  go build -o %s . && ./%s   # speaks ACP on stdin/stdout\n", d.Name, d.Name)
	} else {
		fmt.Fprintf(w, "  go build -o %s . && ./%s -prompt 'Hello' AGENT [ARGS...]\n", d.Name, d.Name)
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
	for {
		if st, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && !st.IsDir() {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// ownVersion is this binary's module version when it was built from a
// published version (go install ...@vX), else "".
func ownVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Path != acpgenModule || !strings.HasPrefix(bi.Main.Version, "v") {
		return ""
	}
	return bi.Main.Version
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
