package main

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/router"
)

// serve runs one connection: the router reads it until initialize and hands
// it to the v1 agent or the v2 one by the requested protocol version. A
// client that leaves before initialize is not an error.
func serve(ctx context.Context, log *slog.Logger, r io.Reader, w io.Writer) error {
	err := router.New().Handle(1, serveV1(log)).Handle(2, serveV2(log)).ServeConn(ctx, r, w)
	if errors.Is(err, router.ErrClosed) {
		return nil
	}
	return err
}

// serveV1 runs the v1 agent on one connection.
func serveV1(log *slog.Logger) router.Serve {
	return func(ctx context.Context, r io.Reader, w io.Writer) error {
		a := &agent{log: log, sessions: map[acp.SessionID]*session{}}
		a.conn = acp.NewAgentConn(a, r, w, acp.ConnOptions{RPC: acp.RPCOptions{Logger: log}})
		return a.conn.Run(ctx)
	}
}
