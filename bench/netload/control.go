//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// usage is what a process under measurement reports of itself.
type usage struct {
	RSS        int64 // resident set, bytes
	RSSAfterGC int64 `json:"-"` // the driver's: RSS after runtime.GC and debug.FreeOSMemory
	Goroutines int
	CPU        time.Duration // user + system, from getrusage
	GCCycles   uint64        // collections completed
	HeapInuse  uint64        // runtime.MemStats
	StackInuse uint64
	Sys        uint64
}

func selfUsage(mem bool) usage {
	u := usage{RSS: rss(), Goroutines: runtime.NumGoroutine(), CPU: cpuTime(), GCCycles: gcCycles()}
	if mem {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		u.HeapInuse, u.StackInuse, u.Sys = ms.HeapInuse, ms.StackInuse, ms.Sys
	}
	return u
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// rss reads VmRSS from /proc/self/status.
func rss() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// serveControl serves the process's usage (/usage; ?mem=1 adds the
// runtime's memory figures), a collection (/gc: runtime.GC and
// debug.FreeOSMemory) and pprof on a loopback port of its own, and writes
// that port's URL to fd 3 for the driver.
func serveControl() {
	mux := http.NewServeMux()
	mux.HandleFunc("/usage", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(selfUsage(r.URL.Query().Get("mem") != ""))
	})
	mux.HandleFunc("/gc", func(w http.ResponseWriter, r *http.Request) {
		runtime.GC()
		debug.FreeOSMemory()
	})
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fatal(err)
	}
	go http.Serve(ln, mux)
	tell("control http://" + ln.Addr().String())
}

// tell writes one line to the driver (fd 3).
func tell(line string) {
	f := os.NewFile(3, "driver")
	if _, err := fmt.Fprintln(f, line); err != nil {
		fatal(err)
	}
}

// child is a process under measurement started by the driver.
type child struct {
	cmd     *exec.Cmd
	control string            // its control URL
	lines   map[string]string // what it told, by first word
	stdin   io.WriteCloser
	stdout  io.ReadCloser
}

// startChild runs this program with args; want names the lines it tells
// before it is ready ("control" always).
func startChild(stdio bool, want []string, args ...string) (*child, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer pr.Close()
	c := &child{cmd: exec.Command(exe, args...), lines: map[string]string{}}
	c.cmd.Stderr = os.Stderr
	c.cmd.ExtraFiles = []*os.File{pw}
	if stdio {
		if c.stdin, err = c.cmd.StdinPipe(); err != nil {
			return nil, err
		}
		if c.stdout, err = c.cmd.StdoutPipe(); err != nil {
			return nil, err
		}
	}
	if err := c.cmd.Start(); err != nil {
		pw.Close()
		return nil, err
	}
	pw.Close()
	sc := bufio.NewScanner(pr)
	for _, w := range append([]string{"control"}, want...) {
		for c.lines[w] == "" {
			if !sc.Scan() {
				c.cmd.Process.Kill()
				c.cmd.Wait()
				return nil, fmt.Errorf("%s: exited before telling %q", args[0], w)
			}
			k, v, _ := strings.Cut(sc.Text(), " ")
			c.lines[k] = v
		}
	}
	c.control = c.lines["control"]
	return c, nil
}

func (c *child) usage(mem bool) (usage, error) {
	q := ""
	if mem {
		q = "?mem=1"
	}
	var u usage
	err := c.getJSON("/usage"+q, &u)
	return u, err
}

func (c *child) gc() error { return c.getJSON("/gc", nil) }

// profile saves a pprof profile (heap, goroutine) of the child into path.
func (c *child) profile(name, path string) error {
	resp, err := http.Get(c.control + "/debug/pprof/" + name)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, resp.Body); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

func (c *child) getJSON(path string, v any) error {
	resp, err := http.Get(c.control + path)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if v == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

func (c *child) stop() {
	if c.stdin != nil {
		c.stdin.Close()
	}
	c.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		c.cmd.Process.Kill()
		<-done
	}
}
