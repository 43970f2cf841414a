package inspect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/acpgen/acpgen/internal/procgroup"
	"github.com/acpgen/acpgen/internal/syncwriter"
)

// Options configure an inspection over stdio: the editor's side is Stdin,
// Stdout and Stderr; the agent is started from Argv.
type Options struct {
	Argv     []string
	Profiles *Profiles
	Stdin    io.Reader
	Stdout   io.Writer
	// Stderr gets one line per finding, and the agent's own stderr.
	Stderr io.Writer
	// Trace, when set, gets one JSON record per frame (see Record).
	Trace io.Writer
}

// Result is how an inspection ended.
type Result struct {
	// ExitStatus is the agent's (128+N when signal N ended it).
	ExitStatus int
	// Findings counts the findings by level.
	Findings map[string]int
	// Connections counts the client connections served (ServeNetwork).
	Connections int
}

// Run starts the agent and relays the editor's stdio to it unchanged, both
// ways, judging every frame, until the agent exits. The end of Stdin closes
// the agent's stdin; cancelling ctx kills the agent.
func Run(ctx context.Context, o Options) (*Result, error) {
	if len(o.Argv) == 0 {
		return nil, errors.New("no agent command given: acpgen inspect [flags] -- AGENT [ARGS]")
	}
	cmd := exec.CommandContext(ctx, o.Argv[0], o.Argv[1:]...)
	procgroup.Set(cmd)
	cmd.Cancel = func() error { return procgroup.Kill(cmd) }
	stderr := o.Stderr
	if _, isFile := stderr.(*os.File); !isFile {
		// The agent's stderr and the findings share a writer that is not a
		// file: one write at a time.
		stderr = syncwriter.New(stderr)
	}
	cmd.Stderr = stderr
	toAgent, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	fromAgent, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the agent: %w", err)
	}
	s := stream{sink: newSink(stderr, o.Trace), checker: NewChecker(o.Profiles)}
	go func() {
		_ = relay(toAgent, o.Stdin, func(line []byte, size int) { s.observe(ToAgent, line, size) })
		toAgent.Close()
	}()
	// The agent's output is read to its end before Wait closes the pipe.
	outErr := relay(o.Stdout, fromAgent, func(line []byte, size int) { s.observe(ToClient, line, size) })
	if outErr != nil {
		// The editor stopped reading: drain the agent so it can go on
		// to its exit.
		_, _ = io.Copy(io.Discard, fromAgent)
	}
	werr := cmd.Wait()
	_ = procgroup.Kill(cmd) // what is left of its group
	var exit *exec.ExitError
	if werr != nil && !errors.As(werr, &exit) {
		return nil, werr
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, fmt.Errorf("writing the trace: %w", s.err)
	}
	return &Result{ExitStatus: procgroup.ExitStatus(cmd.ProcessState), Findings: s.findings}, nil
}
