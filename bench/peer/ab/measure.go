package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/acpgen/acpgen/bench/peer/internal/buildcost"
)

// measure prepares both sides in tmp and writes every measure to w, as
// go test -bench result lines whose names end in side=old or side=new,
// after the machine's lines (goos, goarch, cpu) and the two commits.
func measure(o options, tmp string, w io.Writer) error {
	sides := []*side{{name: "old", ref: o.old}, {name: "new", ref: o.new}}
	var head, body bytes.Buffer
	fmt.Fprintf(&body, "load-start: %s\n", loadavg())
	for _, s := range sides {
		if err := prepare(o.root, tmp, s); err != nil {
			return fmt.Errorf("%s side (%s): %w", s.name, s.ref, err)
		}
		fmt.Fprintf(&body, "ab-%s: %s\n", s.name, s.commit)
	}
	abDir, bin := filepath.Join(tmp, "ab"), filepath.Join(tmp, "bin")
	if err := writeHarness(abDir, sides); err != nil {
		return err
	}
	steps := []func() error{
		func() error { return sizes(&body, abDir, bin, sides) },
		func() error { return compiles(&body, abDir, tmp, sides, o.costCount) },
		func() error { return generateChecks(&body, bin, sides, o.costCount) },
		func() error { return codecs(&head, &body, abDir, bin, o) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	fmt.Fprintf(&body, "load-end: %s\n", loadavg())
	_, err := w.Write(slices.Concat(head.Bytes(), body.Bytes()))
	return err
}

// prepare resolves the side's ref and writes its tree and renamed copy.
func prepare(repo, tmp string, s *side) error {
	commit, err := output(repo, "git", "log", "-1", "--format=%H %s", s.ref)
	if err != nil {
		return err
	}
	s.commit = commit
	s.tree = filepath.Join(tmp, s.name, "tree")
	s.mod = filepath.Join(tmp, s.name, "mod")
	s.module = "acpgen." + s.name
	if err := extract(repo, strings.Fields(commit)[0], s.tree); err != nil {
		return err
	}
	return copyRenamed(s)
}

// sizes reports each side's generated function declarations and lines and
// its minimal agent's binary size (go build defaults).
func sizes(w io.Writer, abDir, bin string, sides []*side) error {
	for _, s := range sides {
		funcs, lines, err := generatedSize(s.tree)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "BenchmarkABGenerated/side=%s 1 %d funcs %d lines\n", s.name, funcs, lines)
	}
	for _, s := range sides {
		out := filepath.Join(bin, "minimal-"+s.name)
		if _, err := output(abDir, "go", "build", "-o", out, s.module+"/examples/minimal"); err != nil {
			return err
		}
		st, err := os.Stat(out)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "BenchmarkABBinary/side=%s 1 %d minimal-agent-B\n", s.name, st.Size())
	}
	return nil
}

// compiles compiles each side's gen/acp in turn, rounds times, the first
// side alternating.
func compiles(w io.Writer, abDir, tmp string, sides []*side, rounds int) error {
	compiler, err := buildcost.Compiler()
	if err != nil {
		return err
	}
	dir := filepath.Join(tmp, "compile")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cmds := map[*side]buildcost.Compile{}
	for _, s := range sides {
		if cmds[s], err = buildcost.Command(abDir, dir, s.name, s.module+"/gen/acp"); err != nil {
			return err
		}
	}
	for i := range rounds {
		for _, s := range turn(sides, i) {
			c, err := cmds[s].Run(compiler)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "BenchmarkABCompile/side=%s 1 %d ns/op %.3f cpu-sec/op %d peak-RSS-B %d archive-B\n",
				s.name, c.Wall.Nanoseconds(), c.CPU.Seconds(), c.PeakRSS, c.Archive)
		}
	}
	return nil
}

// turn is the sides in the order of round i: old first in even rounds.
func turn(sides []*side, i int) []*side {
	if i%2 == 0 {
		return sides
	}
	return []*side{sides[1], sides[0]}
}

// generateChecks builds each side's acpgen and runs `acpgen generate
// --check` in the side's tree, in turn, rounds times.
func generateChecks(w io.Writer, bin string, sides []*side, rounds int) error {
	exe := map[*side]string{}
	for _, s := range sides {
		exe[s] = filepath.Join(bin, "acpgen-"+s.name)
		if _, err := output(s.tree, "go", "build", "-o", exe[s], "./cmd/acpgen"); err != nil {
			return err
		}
	}
	for i := range rounds {
		for _, s := range turn(sides, i) {
			cmd := exec.Command(exe[s], "generate", "--check", "--quiet")
			cmd.Dir = s.tree
			start := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("%s side: acpgen generate --check: %v\n%s", s.name, err, out)
			}
			ps := cmd.ProcessState
			fmt.Fprintf(w, "BenchmarkABGenerateCheck/side=%s 1 %d ns/op %.3f cpu-sec/op %d peak-RSS-B\n", s.name,
				time.Since(start).Nanoseconds(), (ps.UserTime() + ps.SystemTime()).Seconds(), buildcost.PeakRSS(ps))
		}
	}
	return nil
}

// codecs builds the harness's test binary once and runs its benchmarks
// o.count times, the side whose turn comes first alternating; it writes the
// first run's goos/goarch/cpu lines to head and every run's result lines to
// w.
func codecs(head, w io.Writer, abDir, bin string, o options) error {
	test := filepath.Join(bin, "ab.test")
	if _, err := output(abDir, "go", "test", "-c", "-o", test, "."); err != nil {
		return err
	}
	for i := range o.count {
		first := []string{"old", "new"}[i%2]
		out, err := output(abDir, test, "-test.run", "^$", "-test.bench", ".", "-test.benchmem",
			"-test.benchtime", o.benchtime, "-test.count", "1", "-ab.first", first)
		if err != nil {
			return err
		}
		s := bufio.NewScanner(strings.NewReader(out))
		for s.Scan() {
			t := s.Text()
			switch {
			case strings.HasPrefix(t, "Benchmark"):
				fmt.Fprintln(w, t)
			case i == 0 && (strings.HasPrefix(t, "goos:") || strings.HasPrefix(t, "goarch:") || strings.HasPrefix(t, "cpu:")):
				fmt.Fprintln(head, t)
			}
		}
		fmt.Fprintf(os.Stderr, "ab: codec round %d of %d done\n", i+1, o.count)
	}
	return nil
}

// loadavg is the 1-minute load average, or "unknown".
func loadavg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if f := bytes.Fields(data); err == nil && len(f) > 0 {
		return string(f[0])
	}
	return "unknown"
}

// countFuncs counts the function and method declarations among decls.
func countFuncs(decls []ast.Decl) int {
	n := 0
	for _, d := range decls {
		if _, ok := d.(*ast.FuncDecl); ok {
			n++
		}
	}
	return n
}

// write puts the raw results and benchstat's comparison into o.out.
func write(o options, raw []byte) error {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	text, err := benchstat(o.root, raw, "text")
	if err != nil {
		return err
	}
	csv, err := benchstat(o.root, raw, "csv")
	if err != nil {
		return err
	}
	os.Stdout.Write(text)
	return errors.Join(
		writeFile(filepath.Join(o.out, "ab.txt"), raw),
		writeFile(filepath.Join(o.out, "ab-benchstat.txt"), text),
		writeFile(filepath.Join(o.out, "ab-benchstat.csv"), csv))
}
