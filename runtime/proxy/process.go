package proxy

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/acpgen/acpgen/internal/procgroup"
)

// Grace periods of a successor process: how long Close waits for it to
// exit once its input is closed before killing it, and how long a failed
// write waits to learn whether it exited.
const (
	closeGrace = 5 * time.Second
	exitGrace  = time.Second
)

// Command starts cmd, the successor (an agent, or another proxy run
// transparently), and returns the Link over its stdin and stdout; its
// stderr is what cmd sets. When its output ends Read waits for it to exit
// and returns an error naming how ("agent exited: exit status 3"), which
// ends the chain. CloseWrite closes its stdin; Close does too and, when
// it has not exited 5 s later, kills it. As every child acpgen starts
// (ARCHITECTURE.md, "Child processes"), cmd runs in a process group of its
// own, which is killed when the process exits or is killed, and on Linux
// it is killed when the proxy's process dies; Command keeps what else
// cmd.SysProcAttr holds.
func Command(cmd *exec.Cmd) (Link, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	pr, pw, err := os.Pipe() // not StdoutPipe: Wait must not close what is still to be read
	if err != nil {
		return nil, err
	}
	cmd.Stdout = pw
	procgroup.Set(cmd)
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, err
	}
	pw.Close()
	p := &process{cmd: cmd, stdin: stdin, exited: make(chan struct{})}
	p.stream = Stream(pr, stdin).(*stream)
	go p.wait()
	return p, nil
}

type process struct {
	*stream
	cmd     *exec.Cmd
	stdin   io.Closer
	exited  chan struct{}
	waitErr error
	once    sync.Once
}

// wait reaps the process, then ends what is left of its group: a child
// still holding its stdout would keep Read from seeing the end.
func (p *process) wait() {
	err := p.cmd.Wait()
	_ = procgroup.Kill(p.cmd)
	if err == nil || errors.As(err, new(*exec.ExitError)) {
		err = errors.New("agent exited: " + p.cmd.ProcessState.String())
	} else {
		err = errors.New("agent: " + err.Error())
	}
	p.waitErr = err
	close(p.exited)
}

// Read returns the agent's next message; at the end of its output, how it
// exited.
func (p *process) Read() ([]byte, error) {
	frame, err := p.stream.Read()
	if errors.Is(err, io.EOF) {
		<-p.exited
		return nil, p.waitErr
	}
	return frame, err
}

// Write sends one message; when the agent has exited, the error says how.
func (p *process) Write(msg []byte) error {
	err := p.stream.Write(msg)
	if err != nil {
		select {
		case <-p.exited:
			return p.waitErr
		case <-time.After(exitGrace):
		}
	}
	return err
}

// CloseWrite closes the agent's stdin: its input has ended.
func (p *process) CloseWrite() error { return p.stdin.Close() }

// Close closes the agent's stdin and output, and kills it when it has not
// exited within closeGrace.
func (p *process) Close() error {
	p.once.Do(func() {
		_ = p.stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(closeGrace):
			_ = procgroup.Kill(p.cmd)
			<-p.exited
		}
		_ = p.stream.r.(io.Closer).Close()
	})
	return nil
}
