package sweep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/mod/modfile"
)

// modulePath is the scratch module's path; each package is
// modulePath/v<version>/<channel>.
const modulePath = "acpgen.sweep"

// scratchModule makes work a module that requires this acpgen through a
// replace directive, so the generated packages build against the runtime
// of the acpgen that generated them, with acpgen's go.sum for its
// dependencies.
func scratchModule(work string) error {
	src, err := moduleDir()
	if err != nil {
		return err
	}
	sum, err := os.ReadFile(filepath.Join(src, "go.sum"))
	if err != nil {
		return err
	}
	gomod, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		return err
	}
	mod := fmt.Sprintf("module %s\n\ngo %s\n\nrequire %s v0.0.0\n\nreplace %s => %s\n",
		modulePath, goVersion(gomod), generatorModule, generatorModule, quoteIfNeeded(src))
	if err := os.WriteFile(filepath.Join(work, "go.mod"), []byte(mod), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(work, "go.sum"), sum, 0o644)
}

const generatorModule = "github.com/acpgen/acpgen"

// moduleDir is the folder of the acpgen module this code was built from:
// beside this source file when it is on disk (a checkout, the module
// cache), else where the go command finds the module.
func moduleDir() (string, error) {
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		dir := filepath.Dir(filepath.Dir(filepath.Dir(file)))
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.Contains(b, []byte("module "+generatorModule+"\n")) {
			return dir, nil
		}
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", generatorModule).Output()
	if dir := strings.TrimSpace(string(out)); err == nil && dir != "" {
		return dir, nil
	}
	return "", errors.New("cannot find the acpgen module's source to build the generated packages against")
}

// goVersion is the go directive of acpgen's go.mod: the generated code
// needs what acpgen's runtime needs.
func goVersion(gomod []byte) string {
	if f, err := modfile.ParseLax("go.mod", gomod, nil); err == nil && f.Go != nil {
		return f.Go.Version
	}
	return "1.24"
}

func quoteIfNeeded(p string) string {
	if strings.ContainsAny(p, " \t\"'") {
		return fmt.Sprintf("%q", p)
	}
	return p
}

// check builds and vets one package; vet compiles its tests too.
func check(ctx context.Context, work, pkg string) (result, firstErr string) {
	for _, step := range []struct{ verb, fail string }{{"build", Build}, {"vet", Vet}} {
		cmd := exec.CommandContext(ctx, "go", step.verb, "./"+pkg)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			return step.fail, firstError(string(out), err)
		}
	}
	return OK, ""
}

// firstError is the first line of go's output that is not a package header.
func firstError(out string, err error) string {
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			return l
		}
	}
	return err.Error()
}
