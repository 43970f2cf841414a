package peer

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/acpgen/acpgen/bench/peer/internal/buildcost"
)

// BenchmarkCompile compiles gen/acp, the peer's root package and
// gen/acp/unstable once each per iteration, in turn, so all three see the
// same machine conditions. It reports each one's wall time (label-s), CPU
// time (label-cpu-s), the compiler's peak resident set (label-RSS-MB,
// getrusage), the compiled archive's size (label-archive-MB) and the Go
// lines compiled (label-klines). A child's peak resident set on Linux starts
// at the starting process's, so run this benchmark in a test binary of its
// own (bench/run.sh does); the test binary's resident set is small next to
// the compiler's.
func BenchmarkCompile(b *testing.B) {
	compiler, err := buildcost.Compiler()
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	var pkgs []buildcost.Compile
	for _, p := range compiled {
		c, err := buildcost.Command("", dir, p[0], p[1])
		if err != nil {
			b.Fatal(err)
		}
		pkgs = append(pkgs, c)
	}
	sum := make([]buildcost.Cost, len(pkgs))
	n := 0
	for b.Loop() {
		n++
		for i, p := range pkgs {
			c, err := p.Run(compiler)
			if err != nil {
				b.Fatal(err)
			}
			sum[i].Wall += c.Wall
			sum[i].CPU += c.CPU
			sum[i].PeakRSS = max(sum[i].PeakRSS, c.PeakRSS)
			sum[i].Archive = c.Archive
		}
	}
	for i, p := range pkgs {
		lines, err := p.Lines()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(sum[i].Wall.Seconds()/float64(n), p.Label+"-s")
		b.ReportMetric(sum[i].CPU.Seconds()/float64(n), p.Label+"-cpu-s")
		b.ReportMetric(float64(sum[i].PeakRSS)/(1<<20), p.Label+"-RSS-MB")
		b.ReportMetric(float64(sum[i].Archive)/1e6, p.Label+"-archive-MB")
		b.ReportMetric(float64(lines)/1000, p.Label+"-klines")
	}
}

// BenchmarkCompileInstructions compiles the same three packages once each
// under cachegrind (buildcost.Instructions: one backend worker, GC off) and
// reports the millions of instructions each compile executed (label-Minstr):
// the compile cost without the machine's load in it. Skipped without
// valgrind on PATH, and when valgrind cannot run the compiler here (the
// reason is printed).
func BenchmarkCompileInstructions(b *testing.B) {
	if _, err := exec.LookPath("valgrind"); err != nil {
		b.Skip("valgrind not on PATH")
	}
	compiler, err := buildcost.Compiler()
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	var pkgs []buildcost.Compile
	for _, p := range compiled {
		c, err := buildcost.Command("", dir, p[0], p[1])
		if err != nil {
			b.Fatal(err)
		}
		pkgs = append(pkgs, c)
	}
	for b.Loop() {
		for _, c := range pkgs {
			n, err := c.Instructions(compiler)
			if err != nil {
				// A machine whose valgrind cannot run the compiler gives no
				// count; BenchmarkCompile's CPU-time median stands instead.
				b.Skipf("instruction counts unavailable on this machine, use BenchmarkCompile's CPU time: %v", err)
			}
			b.ReportMetric(float64(n)/1e6, c.Label+"-Minstr")
		}
	}
}

// compiled are the packages the compile benchmarks build: label and path.
var compiled = [][2]string{
	{"acpgen", "github.com/acpgen/acpgen/gen/acp"},
	{"peer", "github.com/coder/acp-go-sdk"},
	{"unstable", "github.com/acpgen/acpgen/gen/acp/unstable"},
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
