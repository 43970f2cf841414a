package main

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/acpgen/acpgen/runtime/acphttp"
	"github.com/acpgen/acpgen/runtime/jsonrpc"
)

// drainGrace is how long the agent lets requests in flight and v2 turns
// run on after SIGTERM or SIGINT, on stdio and over the network, before it
// cancels them: a cancelled prompt turn answers stopReason cancelled (v2:
// reports idle with stopReason cancelled).
const drainGrace = 10 * time.Second

// serveDrained serves one stdio connection like serveConn. When ctx ends (a
// signal), the connection drains: a request read from then on is refused
// (-32001), the ones in flight have grace to finish and are cancelled
// after it. It returns once the connection has drained, at once when no
// initialize has been served yet, and at the latest
// acphttp.ShutdownCancelWait after the grace.
func serveDrained(ctx context.Context, grace time.Duration, st *store, log *slog.Logger, r io.Reader, w io.Writer) error {
	rctx, d := jsonrpc.WithDrain(context.WithoutCancel(ctx))
	errc := make(chan error, 1)
	go func() { errc <- serveConn(rctx, st, log, r, w) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	gctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if !d.Start(gctx) {
		return nil // before initialize: nothing to drain
	}
	t := time.NewTimer(grace + acphttp.ShutdownCancelWait)
	defer t.Stop()
	select {
	case err := <-errc:
		return err
	case <-t.C:
		log.Warn("drain: requests still running after the grace, exiting")
		return nil
	}
}
