package conductor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
	"github.com/acpgen/acpgen/runtime/proxychain"
	"github.com/acpgen/acpgen/runtime/wire"

	"github.com/acpgen/acpgen/internal/syncwriter"
)

// DefaultGrace is how long a component has to exit once its stdin is
// closed before its process group is killed.
const DefaultGrace = 5 * time.Second

// Options configure a chain run over stdio.
type Options struct {
	// Components are the chain's command lines, the editor's side first:
	// proxies, then the agent. At least one (the agent alone is a relay).
	Components [][]string
	// Stdin and Stdout are the editor's side of the chain.
	Stdin  io.Reader
	Stdout io.Writer
	// Stderr gets every component's stderr, each line prefixed with the
	// component's position and program name ("[2 filter] "); nil discards
	// it.
	Stderr io.Writer
	// Logger gets the conductor's own warnings (frames it cannot route);
	// nil discards them.
	Logger *slog.Logger
	// Grace is how long a component has to exit once its stdin is closed
	// (or its stdout has ended) before its process group is killed; zero
	// means DefaultGrace.
	Grace time.Duration
	// MaxFrame bounds a line, as jsonrpc.Options.MaxFrame does; zero means
	// jsonrpc.DefaultMaxFrame.
	MaxFrame int
	// Names is the dialect of the Proxy Chains method names the conductor
	// starts exchanges in: the proxy/initialize it sends, and the
	// proxy/successor it wraps in toward a proxy until that proxy has sent
	// one of its own (then the proxy's dialect). Zero is the schema's
	// names; proxychain.Rust is the Rust SDK's (_proxy/initialize,
	// _proxy/successor). Both are read from components whatever it is.
	Names proxychain.Dialect
}

// Result is how a chain ended.
type Result struct {
	// Ended is the component whose exit ended the chain while the editor
	// was still connected; nil when the editor's stdin ended first or the
	// context was cancelled.
	Ended *Exit
	// Exits are every component's ends, in chain order.
	Exits []Exit
}

// Run starts the components and runs the chain until it ends: the end of
// Stdin closes every component's stdin; a component that exits first ends
// the chain, and every request of the editor's still unanswered is
// answered with the error EndedError returns; a cancelled ctx stops it.
// Either way every component is stopped (stdin closed, then its process
// group killed after Grace) before Run returns. Writes to the editor never
// hold the end: the answers to its waiting requests are written on a
// goroutine of their own, and Run waits for them at most Grace after the
// components have stopped. Run does not wait for a Read of Stdin, or a
// write to Stdout, still in progress when it returns. The error is about
// starting the chain, or ctx's.
func Run(ctx context.Context, o Options) (*Result, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	o.defaults()
	c := &chain{log: o.Logger, maxFrame: o.MaxFrame, names: o.Names}
	c.peers = []*peer{newPeer(0, "the editor", o.Stdout)}
	comps, err := startAll(o.Components, o.Stderr)
	if err != nil {
		return nil, err
	}
	ended := make(chan *component, len(comps))
	for _, comp := range comps {
		c.peers = append(c.peers, comp.peer)
	}
	for _, p := range c.peers {
		p.names.Store(uint32(o.Names))
	}
	for _, comp := range comps {
		go c.runComponent(comp, o.Grace, ended)
	}
	editorDone := make(chan struct{})
	go func() {
		defer close(editorDone)
		if err := c.serve(c.peers[0], o.Stdin); err != nil {
			c.log.Warn("conductor: reading the editor failed", "err", err)
		}
	}()
	res := &Result{}
	left := len(comps)
	var answered <-chan struct{}
	select {
	case comp := <-ended:
		left--
		e := comp.exit()
		res.Ended = &e
		answered = c.end(EndedError(e))
	case <-editorDone:
	case <-ctx.Done():
	}
	stopAll(comps, ended, left, o.Grace)
	if answered == nil {
		answered = c.end(&wire.RPCError{Code: wire.CodeInternalError, Message: "Internal error: the chain has stopped"})
	}
	// An editor that does not read cannot hold the end: its answers have
	// Grace to be written once the components are stopped.
	t := time.NewTimer(o.Grace)
	defer t.Stop()
	select {
	case <-answered:
	case <-t.C:
		c.log.Warn("conductor: the editor did not read the chain's last answers; giving up on them")
	}
	for _, comp := range comps {
		res.Exits = append(res.Exits, comp.exit())
	}
	return res, ctx.Err()
}

func (o *Options) check() error {
	if len(o.Components) == 0 {
		return errors.New("conductor: no components: want at least the agent's command")
	}
	for i, argv := range o.Components {
		if len(argv) == 0 {
			return fmt.Errorf("conductor: component %d has no command", i+1)
		}
	}
	return nil
}

func (o *Options) defaults() {
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	if o.MaxFrame <= 0 {
		o.MaxFrame = jsonrpc.DefaultMaxFrame
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if _, isFile := o.Stderr.(*os.File); o.Stderr != nil && !isFile {
		// The components' lines and the logger's share a writer.
		o.Stderr = syncwriter.New(o.Stderr)
	}
}

// EndedError is the error the conductor answers the editor's requests with
// once component e has exited: -32603, the message naming the component
// and its exit status, and data {"component", "command", "exitStatus"}.
func EndedError(e Exit) *wire.RPCError {
	return &wire.RPCError{
		Code:    wire.CodeInternalError,
		Message: "Internal error: " + e.String() + "; the chain has ended",
		Data:    map[string]any{"component": e.Component, "command": e.Command, "exitStatus": e.Status},
	}
}

// startAll starts every component; when one fails, the ones started are
// stopped.
func startAll(argvs [][]string, stderr io.Writer) ([]*component, error) {
	var comps []*component
	for i, argv := range argvs {
		comp, err := startComponent(i+1, argv, stderr)
		if err != nil {
			for _, started := range comps {
				started.stdin.Close()
				started.kill()
				<-started.exited
				started.stdout.Close()
			}
			return nil, err
		}
		comps = append(comps, comp)
	}
	return comps, nil
}

// runComponent routes the component's frames until its stdout ends, and
// reports its end on ended.
func (c *chain) runComponent(comp *component, grace time.Duration, ended chan<- *component) {
	readDone := make(chan struct{})
	go comp.watch(readDone, grace, ended)
	if err := c.serve(comp.peer, comp.stdout); err != nil {
		c.log.Warn("conductor: reading a component failed", "component", comp.name, "err", err)
	}
	close(readDone)
}

// stopAll closes every component's stdin and waits for the left ones to
// end; the ones still running after grace are killed.
func stopAll(comps []*component, ended <-chan *component, left int, grace time.Duration) {
	for _, comp := range comps {
		comp.stdin.Close()
	}
	expired := time.After(grace)
	for left > 0 {
		select {
		case <-ended:
			left--
		case <-expired:
			for _, comp := range comps {
				comp.kill()
			}
			expired = nil
		}
	}
	for _, comp := range comps {
		comp.stdout.Close() // a read a stray child held open returns
	}
}
