package proxy_test

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

	"github.com/acpgen/acpgen/runtime/proxy"
)

// A successor started by Command runs in a process group of its own, with
// Linux's parent-death signal, and Close ends the whole group: here an
// agent that ignores the end of its input and a child it started.
func TestCommandProcessGroup(t *testing.T) {
	pids := filepath.Join(t.TempDir(), "pids")
	cmd := exec.Command("sh", "-c", `sleep 600 & echo $! > "$0"; exec sleep 600`, pids)
	link, err := proxy.Command(cmd)
	if err != nil {
		t.Fatal(err)
	}
	agent := cmd.Process.Pid
	var child int
	for deadline := time.Now().Add(time.Minute); child == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(pids)
		child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if child == 0 {
		t.Fatal("the agent's child did not start")
	}
	t.Cleanup(func() { _ = syscall.Kill(child, syscall.SIGKILL) })
	for _, p := range []int{agent, child} {
		if g, err := syscall.Getpgid(p); err != nil || g != agent {
			t.Errorf("process %d is in group %d (%v), want the agent's own, %d", p, g, err, agent)
		}
	}
	if cmd.SysProcAttr == nil || cmd.SysProcAttr.Pdeathsig != syscall.SIGKILL {
		t.Errorf("SysProcAttr %+v: no parent-death signal", cmd.SysProcAttr)
	}
	link.Close() // the agent ignores its stdin's end: killed after the grace
	for deadline := time.Now().Add(time.Minute); running(child) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if running(child) {
		t.Errorf("the agent's child %d still runs after Close", child)
	}
}

// running reports a process that is not a zombie (a reparented child may
// wait for a reaper that never comes in a container).
func running(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	i := bytes.LastIndexByte(stat, ')')
	return err == nil && i > 0 && i+2 < len(stat) && stat[i+2] != 'Z' && stat[i+2] != 'X'
}
