// Package buildcost measures what compiling one package costs: the compiler
// command go build runs for it on a cache miss for that package alone (the
// same flags, an importcfg naming its dependencies' cached export data), so
// the figure is the package's own compile, not its dependencies'.
package buildcost

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Compile is the compiler command line for one package.
type Compile struct {
	Label string
	Args  []string
	out   string // the archive the compiler writes
}

// Cost is what one compile took.
type Cost struct {
	Wall, CPU time.Duration
	PeakRSS   int64 // bytes (getrusage of the compiler process)
	Archive   int64 // bytes of the compiled package archive
}

// Compiler is the path of the toolchain's compiler.
func Compiler() (string, error) {
	out, err := exec.Command("go", "env", "GOTOOLDIR").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOTOOLDIR: %w", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "compile"), nil
}

// Command prepares the compile of pkg as seen from the module in workdir
// ("" for the current directory), writing its importcfg and archive into dir.
func Command(workdir, dir, label, pkg string) (Compile, error) {
	out, err := goList(workdir, "-export", "-deps", "-f",
		`{{if .Export}}packagefile {{.ImportPath}}={{.Export}}{{end}}`, pkg)
	if err != nil {
		return Compile{}, err
	}
	cfg := filepath.Join(dir, label+".importcfg")
	if err := os.WriteFile(cfg, out, 0o644); err != nil {
		return Compile{}, err
	}
	out, err = goList(workdir, "-f", "{{.Dir}}\n{{with .Module}}{{.GoVersion}}{{end}}\n{{range .GoFiles}}{{.}} {{end}}", pkg)
	if err != nil {
		return Compile{}, err
	}
	f := strings.SplitN(strings.TrimSpace(string(out)), "\n", 3)
	if len(f) != 3 {
		return Compile{}, fmt.Errorf("go list %s: unexpected output %q", pkg, out)
	}
	lang := f[1]
	if n := strings.Count(lang, "."); n > 1 { // 1.26.0 -> 1.26
		lang = lang[:strings.LastIndex(lang, ".")]
	}
	archive := filepath.Join(dir, label+".a")
	args := []string{"-o", archive, "-p", pkg, "-lang=go" + lang, "-complete",
		"-c=" + strconv.Itoa(min(4, runtime.GOMAXPROCS(0))), "-nolocalimports", "-importcfg", cfg, "-pack"}
	for _, name := range strings.Fields(f[2]) {
		args = append(args, filepath.Join(f[0], name))
	}
	return Compile{Label: label, Args: args, out: archive}, nil
}

func goList(workdir string, args ...string) ([]byte, error) {
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = workdir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %w", strings.Join(args, " "), err)
	}
	return out, nil
}

// Run compiles once with the compiler at path compiler.
func (c Compile) Run(compiler string) (Cost, error) {
	cmd := exec.Command(compiler, c.Args...)
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		return Cost{}, fmt.Errorf("compile %s: %v\n%s", c.Label, err, out)
	}
	cost := Cost{Wall: time.Since(start), CPU: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	cost.PeakRSS = PeakRSS(cmd.ProcessState)
	st, err := os.Stat(c.out)
	if err != nil {
		return Cost{}, err
	}
	cost.Archive = st.Size()
	return cost, nil
}

// PeakRSS is a finished process's peak resident set in bytes, 0 where
// getrusage does not say.
func PeakRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss) * 1024 // KiB on Linux
	}
	return 0
}

// Lines counts the lines of the Go files the compile reads.
func (c Compile) Lines() (int, error) {
	n := 0
	for _, a := range c.Args {
		if strings.HasSuffix(a, ".go") {
			data, err := os.ReadFile(a)
			if err != nil {
				return 0, err
			}
			n += strings.Count(string(data), "\n")
		}
	}
	return n, nil
}

// Instructions counts the instructions one compile executes, with valgrind's
// cachegrind (no cache simulation), on one backend worker (-c=1) and with
// the garbage collector off (GOGC=off): a figure that does not move with the
// machine's load, unlike CPU time, and that GC timing would scatter by
// ±15%. It is slow (about 20× a plain compile).
func (c Compile) Instructions(compiler string) (int64, error) {
	out, err := os.CreateTemp("", "cachegrind-*.out")
	if err != nil {
		return 0, err
	}
	out.Close()
	defer os.Remove(out.Name())
	args := []string{"--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=" + out.Name(), compiler}
	for _, a := range c.Args {
		if strings.HasPrefix(a, "-c=") {
			a = "-c=1"
		}
		args = append(args, a)
	}
	cmd := exec.Command("valgrind", args...)
	// cpu.rdtscp=off: the Go runtime reads the clock with RDTSCP where the
	// CPU has it, an instruction valgrind 3.19 cannot run ("unhandled
	// instruction bytes: 0xF 0x1 0xF9"); without it the runtime uses RDTSC.
	cmd.Env = append(os.Environ(), "GOGC=off", "GODEBUG=cpu.rdtscp=off")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("cachegrind compile %s: %v\n%s", c.Label, err, msg)
	}
	return summary(out.Name())
}

// summary reads the instruction total of a cachegrind output file.
func summary(path string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "summary: "); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				return strconv.ParseInt(f[0], 10, 64)
			}
		}
	}
	return 0, fmt.Errorf("%s: no summary line", path)
}
