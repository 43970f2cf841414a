package main

import (
	_ "embed"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/template"

	"golang.org/x/mod/modfile"

	"github.com/acpgen/acpgen/bench/peer/internal/benchmsg"
)

// harnessTemplate is the A/B module's benchmark file: the codec benchmarks
// written once per side against that side's import path.
//
//go:embed harness_test.go.tmpl
var harnessTemplate string

// harnessModule is the module path of the temporary module that imports
// both sides.
const harnessModule = "acpab.test"

// writeHarness writes the temporary module in dir: a go.mod requiring both
// sides through replace directives, their go.sum lines, and the benchmark.
func writeHarness(dir string, sides []*side) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var mf modfile.File
	mf.AddModuleStmt(harnessModule)
	goVersion, err := goDirective(sides[len(sides)-1].mod)
	if err != nil {
		return err
	}
	mf.AddGoStmt(goVersion)
	var sum []string
	for _, s := range sides {
		mf.AddNewRequire(s.module, "v0.0.0", false)
		mf.AddReplace(s.module, "", s.mod, "")
		data, err := os.ReadFile(filepath.Join(s.mod, "go.sum"))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		sum = append(sum, strings.SplitAfter(string(data), "\n")...)
	}
	mf.Cleanup()
	gomod, err := mf.Format()
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), gomod, 0o644); err != nil {
		return err
	}
	slices.Sort(sum)
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), []byte(strings.Join(slices.Compact(sum), "")), 0o644); err != nil {
		return err
	}
	return writeBenchmark(filepath.Join(dir, "ab_test.go"), sides)
}

func writeBenchmark(path string, sides []*side) error {
	t, err := template.New("harness").Parse(harnessTemplate)
	if err != nil {
		return err
	}
	type sideData struct{ Name, Module string }
	var data struct {
		Sides    []sideData
		Messages []benchmsg.Message
	}
	for _, s := range sides {
		data.Sides = append(data.Sides, sideData{s.name, s.module})
	}
	data.Messages = benchmsg.All
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	return errors.Join(t.Execute(f, data), f.Close())
}

// goDirective is the go version of the module in dir.
func goDirective(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", err
	}
	mf, err := modfile.ParseLax("go.mod", data, nil)
	if err != nil {
		return "", err
	}
	if mf.Go == nil {
		return "", errors.New(dir + "/go.mod: no go directive")
	}
	return mf.Go.Version, nil
}
