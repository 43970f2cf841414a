// Command ab compares two generations of acpgen's generated code in one
// session, so the figures compare as ratios: the old ref's gen/acp and
// runtime/ and the new ref's, each copied out of git under an import path of
// its own (acpgen.old, acpgen.new) into a temporary module, measured taking
// turns. It never writes into the repository except its output files.
//
//	cd bench/peer && go run ./ab [-old 92c6e95] [-new HEAD] [-count 10] [-cost-count 5]
//
// It measures, per side: function declarations and lines of the generated
// packages (gen/, non-test files), the minimal agent's binary size, the
// compile of gen/acp (wall, CPU, compiler peak RSS, archive size; the
// compiler alone, dependencies built), `acpgen generate --check` (wall, CPU,
// peak RSS) and decode+Validate and encode of the three benchmark messages
// (go test -bench, old and new in adjacent turns, -count rounds with the
// first side alternating). It writes the raw results to ab.txt in -o and
// benchstat's comparison of the two sides to ab-benchstat.txt and
// ab-benchstat.csv (what bench/benchtable renders).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// options are the command's flags.
type options struct {
	old, new             string // git refs
	count, costCount     int
	benchtime, out, root string
	keep                 bool
}

func main() {
	var o options
	flag.StringVar(&o.old, "old", "92c6e95", "git ref of the old side (default: the commit issue #25's work started from)")
	flag.StringVar(&o.new, "new", "HEAD", "git ref of the new side (committed code only: the working tree is not read)")
	flag.IntVar(&o.count, "count", 10, "rounds of the decode+Validate and encode benchmarks")
	flag.IntVar(&o.costCount, "cost-count", 5, "rounds of the compile and generate --check measures")
	flag.StringVar(&o.benchtime, "benchtime", "500ms", "go test -benchtime of each codec benchmark turn")
	flag.StringVar(&o.out, "o", "", "folder of the output files (default: bench/results of the repository)")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary folder and print its path")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "ab:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	start := time.Now()
	root, err := output("", "git", "rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	o.root = root
	if o.out == "" {
		o.out = filepath.Join(root, "bench", "results")
	}
	tmp, err := os.MkdirTemp("", "acpgen-ab-")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Fprintln(os.Stderr, "ab: temporary folder", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	// The temporary module takes what its build lists need into its go.mod,
	// and no go.work around the repository applies to it.
	os.Setenv("GOWORK", "off")
	os.Setenv("GOFLAGS", strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"))
	var res bytes.Buffer
	if err := measure(o, tmp, &res); err != nil {
		return err
	}
	fmt.Fprintf(&res, "ab-duration: %s\n", time.Since(start).Round(time.Second))
	return write(o, res.Bytes())
}

// output runs a command in dir and returns its trimmed standard output; its
// standard error goes to ours.
func output(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}
