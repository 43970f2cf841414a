package conductor

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/acpgen/acpgen/internal/procgroup"
)

// component is one running program of the chain.
type component struct {
	*peer
	label  string // argv[0]'s base name
	cmd    *exec.Cmd
	stdin  *os.File // the conductor's end of each pipe
	stdout *os.File
	exited chan struct{} // closed once the process is reaped
	errEnd chan struct{} // closed once its stderr is copied to its end
	status int           // as a shell reports it; set before exited closes
	killed atomic.Bool   // stopped by the conductor
}

// startComponent starts argv at position pos (1 for the first) with pipes
// for stdin and stdout, and its stderr copied to stderr with the prefix
// "[pos label] " on every line (discarded when stderr is nil).
func startComponent(pos int, argv []string, stderr io.Writer) (*component, error) {
	label := filepath.Base(argv[0])
	c := &component{label: label, exited: make(chan struct{}), errEnd: make(chan struct{})}
	c.cmd = exec.Command(argv[0], argv[1:]...)
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, err
	}
	// Files, not writers: exec hands them to the process as they are, and
	// Wait waits for the process only.
	c.cmd.Stdin, c.cmd.Stdout = inR, outW
	errR, errW, err := stderrPipe(stderr)
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, err
	}
	if errW != nil {
		c.cmd.Stderr = errW
	}
	procgroup.Set(c.cmd)
	err = c.cmd.Start()
	closeAll(inR, outW, errW)
	if err != nil {
		closeAll(inW, outR, errR)
		return nil, fmt.Errorf("starting component %d (%s): %w", pos, label, err)
	}
	c.stdin, c.stdout = inW, outR
	c.peer = newPeer(pos, fmt.Sprintf("component %d (%s)", pos, label), inW)
	if errR != nil {
		go func() {
			defer close(c.errEnd)
			copyPrefixed(stderr, errR, fmt.Sprintf("[%d %s] ", pos, label))
		}()
	} else {
		close(c.errEnd)
	}
	go c.wait()
	return c, nil
}

func stderrPipe(stderr io.Writer) (r, w *os.File, err error) {
	if stderr == nil {
		return nil, nil, nil
	}
	return os.Pipe()
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			f.Close()
		}
	}
}

// wait reaps the process, then ends what is left of its group: a child
// still holding the component's pipes would keep the chain from seeing
// its end.
func (c *component) wait() {
	_ = c.cmd.Wait()
	c.status = procgroup.ExitStatus(c.cmd.ProcessState)
	_ = procgroup.Kill(c.cmd)
	close(c.exited)
}

// kill stops the component's process group at once.
func (c *component) kill() {
	select {
	case <-c.exited:
	default:
		c.killed.Store(true)
		_ = procgroup.Kill(c.cmd)
	}
}

// watch reports the component's end on ended once its process has exited
// and its stdout and stderr have ended. When one happens without the
// others, they have grace to follow: the process is then killed, and what
// is still in a pipe held open by a stray child is given up.
func (c *component) watch(readDone <-chan struct{}, grace time.Duration, ended chan<- *component) {
	select {
	case <-readDone:
	case <-c.exited:
	}
	expired := make(chan struct{})
	t := time.AfterFunc(grace, func() { close(expired) })
	defer t.Stop()
	select {
	case <-readDone:
	case <-expired:
	}
	select {
	case <-c.exited:
	case <-expired:
		c.kill()
		<-c.exited
	}
	// The process is gone: its stderr ends as soon as the copy catches up.
	t2 := time.NewTimer(grace)
	defer t2.Stop()
	select {
	case <-c.errEnd:
	case <-t2.C:
	}
	ended <- c
}

// Exit is how a component ended.
type Exit struct {
	// Component is its position in the chain, 1 for the first.
	Component int
	// Command is the base name of its program.
	Command string
	// Status is its exit status, 128+N when signal N ended it.
	Status int
	// Killed reports that the conductor killed it: it had not exited within
	// the grace period after its stdin was closed (or after its stdout ended).
	Killed bool
}

func (c *component) exit() Exit {
	return Exit{Component: c.pos, Command: c.label, Status: c.status, Killed: c.killed.Load()}
}

// String says how the component ended, for an error message.
func (e Exit) String() string {
	s := fmt.Sprintf("component %d (%s) exited with status %d", e.Component, e.Command, e.Status)
	if e.Status > 128 {
		s = fmt.Sprintf("component %d (%s) was ended by signal %d (status %d)", e.Component, e.Command, e.Status-128, e.Status)
	}
	return s
}

// copyPrefixed copies src to dst line by line, each line starting with
// prefix and written with one Write, so that lines of several components
// do not interleave. A line longer than the buffer is written in parts.
func copyPrefixed(dst io.Writer, src *os.File, prefix string) {
	defer src.Close()
	br := bufio.NewReaderSize(src, 4096)
	start := true
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			line = line[:0]
			if start {
				line = append(line, prefix...)
			}
			line = append(line, chunk...)
			start = chunk[len(chunk)-1] == '\n'
			if err != nil && err != bufio.ErrBufferFull && !start {
				line, start = append(line, '\n'), true
			}
			_, _ = dst.Write(line)
		}
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
	}
}
