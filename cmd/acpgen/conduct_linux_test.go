package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// When acpgen conduct is killed with SIGKILL, which it cannot handle, its
// components end too, even ones that ignore the end of their input (Linux's
// parent-death signal, set by internal/procgroup).
func TestConductKilledEndsComponents(t *testing.T) {
	bin := acpgenBinary(t)
	dir := t.TempDir()
	pids := filepath.Join(dir, "pids")
	// sleep ignores its stdin: the end of input does not end it.
	component := []string{"sh", "-c", `echo $$ >> "$0"; exec sleep 600`, pids}
	args := append(append(append([]string{"conduct", "--"}, component...), ":::"), component...)
	cmd := exec.Command(bin, args...)
	if _, err := cmd.StdinPipe(); err != nil { // held open: the editor stays connected
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started := waitFor(t, func() []int { return readPids(pids) }, func(p []int) bool { return len(p) == 2 })
	if len(started) != 2 {
		t.Fatalf("components started: %v, want 2", started)
	}
	t.Cleanup(func() {
		for _, p := range started {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	})
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	alive := waitFor(t, func() []int { return living(started) }, func(p []int) bool { return len(p) == 0 })
	if len(alive) > 0 {
		t.Errorf("components %v still run after conduct was killed", alive)
	}
}

// waitFor polls get until done accepts its value or a minute has passed,
// and returns the last value.
func waitFor(t *testing.T, get func() []int, done func([]int) bool) []int {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		v := get()
		if done(v) || time.Now().After(deadline) {
			return v
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func readPids(path string) []int {
	b, _ := os.ReadFile(path)
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			pids = append(pids, n)
		}
	}
	return pids
}

// living returns the pids that name a running process (not a zombie: a
// reparented child may wait for a reaper that never comes in a container).
func living(pids []int) []int {
	var alive []int
	for _, p := range pids {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/stat")
		if err != nil {
			continue
		}
		// The state follows the command name in parentheses.
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) && stat[i+2] != 'Z' && stat[i+2] != 'X' {
			alive = append(alive, p)
		}
	}
	return alive
}
