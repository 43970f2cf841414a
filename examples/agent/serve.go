package main

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/router"
)

// serveConn runs one connection, stdio or network: the router reads it
// until initialize and hands it to the v1 agent or the v2 one by the
// requested protocol version. A client that leaves before initialize is not
// an error.
func serveConn(ctx context.Context, st *store, log *slog.Logger, r io.Reader, w io.Writer) error {
	err := router.New().Handle(1, serveV1(st, log)).Handle(2, serveV2(log)).ServeConn(ctx, r, w)
	if errors.Is(err, router.ErrClosed) {
		return nil
	}
	return err
}

// serveV1 runs the v1 agent on one connection, over the shared session store.
func serveV1(st *store, log *slog.Logger) router.Serve {
	return func(ctx context.Context, r io.Reader, w io.Writer) error {
		a := &agent{store: st, log: log}
		a.conn = acp.NewAgentConn(a, r, w, acp.ConnOptions{RPC: acp.RPCOptions{Logger: log}})
		return a.conn.Run(ctx)
	}
}
