package main

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/acpgen/acpgen/runtime/acphttp"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
)

// drainGrace is how long -listen lets the requests in flight run on after
// SIGTERM or SIGINT before they are cancelled, as examples/agent does.
const drainGrace = 10 * time.Second

// drains are the connections -listen serves, each with a jsonrpc.Drain of
// its own that runtime/proxy follows. acphttp's Shutdown drains only the
// connections on which a jsonrpc.Conn runs, and closes the others (these)
// at once, so the proxy drains them itself before it shuts the server.
type drains struct {
	mu      sync.Mutex
	started bool
	live    map[*jsonrpc.Drain]struct{}
	wg      sync.WaitGroup // connections served
}

// add registers a connection's drain; false once the drain has begun,
// when the connection is closed instead.
func (ds *drains) add(d *jsonrpc.Drain) bool {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if ds.started {
		return false
	}
	if ds.live == nil {
		ds.live = map[*jsonrpc.Drain]struct{}{}
	}
	ds.live[d] = struct{}{}
	ds.wg.Add(1)
	return true
}

// done forgets a connection that has ended.
func (ds *drains) done(d *jsonrpc.Drain) {
	ds.mu.Lock()
	delete(ds.live, d)
	ds.mu.Unlock()
	ds.wg.Done()
}

// drain starts every connection's drain, with grace as its deadline, and
// returns once all have ended or grace plus acphttp.ShutdownCancelWait
// has passed.
func (ds *drains) drain(grace time.Duration, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	ds.mu.Lock()
	ds.started = true
	for d := range ds.live {
		d.Start(ctx)
	}
	n := len(ds.live)
	ds.mu.Unlock()
	log.Info("draining", "connections", n)
	all := make(chan struct{})
	go func() { ds.wg.Wait(); close(all) }()
	t := time.NewTimer(grace + acphttp.ShutdownCancelWait)
	defer t.Stop()
	select {
	case <-all:
	case <-t.C:
		log.Warn("drain: requests still running after the grace, closing")
	}
}
