// Command agent is the example agent of examples/storeagent on a session
// store, so that its sessions outlive the connection, the process and (with
// PostgreSQL) the machine. It speaks ACP on stdin and stdout, or with
// -listen ADDR over the network at /acp (WebSocket and Streamable HTTP): v1,
// or the v2 draft when the client's initialize asks for protocol version 2.
//
//	agent                                  # sessions in ./acp-sessions.db (SQLite)
//	agent -store memory                    # sessions as long as the process
//	agent -store postgres://host/db -listen 127.0.0.1:8080
//
// A store that cannot be opened (a read-only folder, a full disk, a newer
// schema) is logged on one line; the agent then serves without one and
// advertises none of the store's capabilities (v1: session/load, list,
// resume, close, delete, fork; v2: delete and fork).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/acpgen/acpgen/examples/storeagent"
	"github.com/acpgen/acpgen/runtime/acphttp"
	"github.com/acpgen/acpgen/runtime/session"
	"github.com/acpgen/acpgen/store"
)

func main() {
	spec := flag.String("store", "sqlite:acp-sessions.db", "the session store: memory, sqlite:FILE or a postgres:// URL")
	listen := flag.String("listen", "", "serve ACP over the network at http://ADDR/acp instead of stdio")
	token := flag.String("token", "", "with -listen: require \"Authorization: Bearer TOKEN\"")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var st session.Store
	if s, err := store.Open(ctx, *spec, store.Options{}); err != nil {
		log.Error("serving without a session store: sessions last as long as the process and load, list, resume, close, delete and fork are not advertised", "err", err)
	} else {
		st = s
		defer s.Close()
	}
	a := storeagent.New(st, log)
	serve := func(ctx context.Context, r io.Reader, w io.Writer) error {
		return a.Serve(ctx, r, w, log)
	}
	if *listen == "" {
		if err := serve(ctx, os.Stdin, os.Stdout); err != nil {
			log.Error("connection failed", "err", err)
			os.Exit(1)
		}
		return
	}
	o := acphttp.Options{Logger: log}
	if *token != "" {
		o.Auth = acphttp.BearerToken(*token)
	}
	srv := acphttp.NewServer(func(ctx context.Context, c *acphttp.Conn) error { return serve(ctx, c, c) }, o)
	err := acphttp.ListenAndServe(ctx, *listen, srv, acphttp.ServeOptions{
		Listening: func(a net.Addr) { fmt.Printf("listening on http://%s/acp\n", a) },
	})
	if err != nil {
		log.Error("server failed", "err", err)
		os.Exit(1)
	}
}
