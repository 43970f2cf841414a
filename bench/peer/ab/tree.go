package main

import (
	"archive/tar"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/mod/modfile"
)

// side is one of the two generations compared.
type side struct {
	name, ref string
	commit    string // full hash, then its subject
	tree      string // the ref's whole tree, as committed
	mod       string // gen/acp and its closure, under the import path module
	module    string // acpgen.old or acpgen.new
}

// extract writes the tree of commit into dir, read from git archive.
func extract(repo, commit, dir string) error {
	cmd := exec.Command("git", "archive", "--format=tar", commit)
	cmd.Dir = repo
	cmd.Stderr = os.Stderr
	r, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	err = untar(r, dir)
	if werr := cmd.Wait(); err == nil && werr != nil {
		err = fmt.Errorf("git archive %s: %w", commit, werr)
	}
	return err
}

// untar writes the directories and regular files of a tar stream into dir.
func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if !filepath.IsLocal(h.Name) {
			return fmt.Errorf("git archive: path %q outside the tree", h.Name)
		}
		p := filepath.Join(dir, h.Name)
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(p, 0o755)
		case tar.TypeReg:
			err = writeFrom(p, tr, fs.FileMode(h.Mode)&0o755|0o644)
		}
		if err != nil {
			return err
		}
	}
}

func writeFrom(path string, r io.Reader, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	return errors.Join(err, f.Close())
}

// copyRenamed copies the packages gen/acp and examples/minimal need from the
// side's tree into s.mod, their imports of the tree's module moved under
// s.module, with a go.mod of that module path. Test files are left out.
func copyRenamed(s *side) error {
	data, err := os.ReadFile(filepath.Join(s.tree, "go.mod"))
	if err != nil {
		return err
	}
	mf, err := modfile.Parse("go.mod", data, nil)
	if err != nil {
		return err
	}
	from := mf.Module.Mod.Path
	list, err := output(s.tree, "go", "list", "-deps", "-f",
		"{{if .Module}}{{if .Module.Main}}{{.ImportPath}}{{end}}{{end}}", "./gen/acp", "./examples/minimal")
	if err != nil {
		return err
	}
	for _, pkg := range strings.Fields(list) {
		rel := strings.TrimPrefix(strings.TrimPrefix(pkg, from), "/")
		if err := copyPackage(filepath.Join(s.tree, rel), filepath.Join(s.mod, rel), from, s.module); err != nil {
			return err
		}
	}
	if err := mf.AddModuleStmt(s.module); err != nil {
		return err
	}
	out, err := mf.Format()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(s.mod, "go.mod"), out, 0o644); err != nil {
		return err
	}
	sum, err := os.ReadFile(filepath.Join(s.tree, "go.sum"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.WriteFile(filepath.Join(s.mod, "go.sum"), sum, 0o644)
}

// copyPackage copies the files of one package folder (not its subfolders),
// leaving out tests, with rewritten imports.
func copyPackage(src, dst, from, to string) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || strings.HasSuffix(name, "_test.go") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			return err
		}
		if strings.HasSuffix(name, ".go") {
			if data, err = rewriteImports(filepath.Join(src, name), data, from, to); err != nil {
				return err
			}
		}
		if err := os.WriteFile(filepath.Join(dst, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// rewriteImports moves the file's imports of module from (and its packages)
// under module to. Only the import path literals change; every other byte
// stays, so the compiler reads the same code.
func rewriteImports(name string, src []byte, from, to string) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(src)
	for i := len(f.Imports) - 1; i >= 0; i-- { // from the end: offsets stay valid
		lit := f.Imports[i].Path
		path, err := strconv.Unquote(lit.Value)
		if err != nil {
			return nil, err
		}
		if path != from && !strings.HasPrefix(path, from+"/") {
			continue
		}
		at := fset.Position(lit.Pos()).Offset
		out = slices.Concat(out[:at], []byte(strconv.Quote(to+path[len(from):])), out[at+len(lit.Value):])
	}
	return out, nil
}

// generatedSize counts the function declarations and lines of the non-test
// Go files under the tree's gen/ folder (every generated package).
func generatedSize(tree string) (funcs, lines int, err error) {
	fset := token.NewFileSet()
	err = filepath.WalkDir(filepath.Join(tree, "gen"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		funcs += countFuncs(f.Decls)
		lines += strings.Count(string(src), "\n")
		return nil
	})
	return funcs, lines, err
}
