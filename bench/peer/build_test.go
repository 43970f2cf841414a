package peer

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// compiled is one package that BenchmarkCompile compiles: the compiler
// command line go build would run for it, with every dependency's export
// data already built.
type compiled struct {
	label string
	args  []string
}

// compileCommand prepares the compile of pkg as go build runs it on a cache
// miss for pkg alone: the same flags, an importcfg naming the cached export
// data of its dependencies.
func compileCommand(b *testing.B, label, pkg, dir string) compiled {
	out, err := exec.Command("go", "list", "-export", "-deps", "-f",
		`{{if .Export}}packagefile {{.ImportPath}}={{.Export}}{{end}}`, pkg).Output()
	if err != nil {
		b.Fatalf("go list -export %s: %v", pkg, err)
	}
	cfg := filepath.Join(dir, label+".importcfg")
	if err := os.WriteFile(cfg, out, 0o644); err != nil {
		b.Fatal(err)
	}
	out, err = exec.Command("go", "list", "-f", "{{.Dir}}\n{{with .Module}}{{.GoVersion}}{{end}}\n{{range .GoFiles}}{{.}} {{end}}", pkg).Output()
	if err != nil {
		b.Fatalf("go list %s: %v", pkg, err)
	}
	f := strings.SplitN(strings.TrimSpace(string(out)), "\n", 3)
	if len(f) != 3 {
		b.Fatalf("go list %s: unexpected output %q", pkg, out)
	}
	lang := f[1]
	if n := strings.Count(lang, "."); n > 1 { // 1.26.0 -> 1.26
		lang = lang[:strings.LastIndex(lang, ".")]
	}
	args := []string{"-o", filepath.Join(dir, label+".a"), "-p", pkg, "-lang=go" + lang, "-complete",
		"-c=" + strconv.Itoa(min(4, runtime.GOMAXPROCS(0))), "-nolocalimports", "-importcfg", cfg, "-pack"}
	for _, name := range strings.Fields(f[2]) {
		args = append(args, filepath.Join(f[0], name))
	}
	return compiled{label, args}
}

// BenchmarkCompile compiles gen/acp, the peer's root package and
// gen/acp/unstable once each per iteration, in turn, so all three see the
// same machine conditions. It reports each one's wall time (label-s), CPU
// time (label-cpu-s) and the compiler's peak resident set (label-RSS-MB,
// getrusage). A child's peak resident set on Linux starts at the starting
// process's, so run this benchmark in a test binary of its own (bench/run.sh
// does); the test binary's resident set is small next to the compiler's.
func BenchmarkCompile(b *testing.B) {
	tool, err := exec.Command("go", "env", "GOTOOLDIR").Output()
	if err != nil {
		b.Fatal(err)
	}
	compiler := filepath.Join(strings.TrimSpace(string(tool)), "compile")
	dir := b.TempDir()
	pkgs := []compiled{
		compileCommand(b, "acpgen", "github.com/acpgen/acpgen/gen/acp", dir),
		compileCommand(b, "peer", "github.com/coder/acp-go-sdk", dir),
		compileCommand(b, "unstable", "github.com/acpgen/acpgen/gen/acp/unstable", dir),
	}
	wall := make([]time.Duration, len(pkgs))
	cpu := make([]time.Duration, len(pkgs))
	rss := make([]int64, len(pkgs))
	n := 0
	for b.Loop() {
		n++
		for i, p := range pkgs {
			cmd := exec.Command(compiler, p.args...)
			start := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("compile %s: %v\n%s", p.label, err, out)
			}
			wall[i] += time.Since(start)
			cpu[i] += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
				rss[i] = max(rss[i], int64(ru.Maxrss)) // KiB on Linux
			}
		}
	}
	for i, p := range pkgs {
		b.ReportMetric(wall[i].Seconds()/float64(n), p.label+"-s")
		b.ReportMetric(cpu[i].Seconds()/float64(n), p.label+"-cpu-s")
		b.ReportMetric(float64(rss[i])/1024, p.label+"-RSS-MB")
		b.ReportMetric(float64(lines(b, p.args))/1000, p.label+"-klines")
	}
}

// lines counts the lines of the Go files on a compile command line.
func lines(b *testing.B, args []string) int {
	n := 0
	for _, a := range args {
		if strings.HasSuffix(a, ".go") {
			data, err := os.ReadFile(a)
			if err != nil {
				b.Fatal(err)
			}
			n += strings.Count(string(data), "\n")
		}
	}
	return n
}

// BenchmarkBinary builds the minimal agent twice, on gen/acp
// (examples/minimal) and on the peer (./minimal, the same agent), with
// go build's defaults, and reports each binary's size in MB.
func BenchmarkBinary(b *testing.B) {
	dir := b.TempDir()
	targets := []struct{ label, pkg string }{
		{"acpgen", "github.com/acpgen/acpgen/examples/minimal"},
		{"peer", "./minimal"},
	}
	size := make([]int64, len(targets))
	for b.Loop() {
		for i, t := range targets {
			bin := filepath.Join(dir, t.label)
			if out, err := exec.Command("go", "build", "-o", bin, t.pkg).CombinedOutput(); err != nil {
				b.Fatalf("go build %s: %v\n%s", t.pkg, err, out)
			}
			st, err := os.Stat(bin)
			if err != nil {
				b.Fatal(err)
			}
			size[i] = st.Size()
		}
	}
	for i, t := range targets {
		b.ReportMetric(float64(size[i])/1e6, t.label+"-MB")
	}
}
