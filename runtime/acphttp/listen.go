package acphttp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// ServeOptions configure ListenAndServe and Serve; the zero value is usable.
type ServeOptions struct {
	// Path is where the endpoint is served; other paths are answered 404.
	// Default DefaultPath.
	Path string
	// ReadHeaderTimeout bounds the time to read a request's headers (a
	// slow client holds no file descriptor past it). Default
	// DefaultReadHeaderTimeout.
	ReadHeaderTimeout time.Duration
	// KeepAliveTimeout closes an HTTP connection that carries no request
	// for that long (http.Server's IdleTimeout; a Streamable HTTP event
	// stream is a request in progress, so it is never cut by it). Default
	// DefaultKeepAliveTimeout.
	KeepAliveTimeout time.Duration
	// MaxHeaderBytes bounds a request's headers. Default
	// DefaultMaxHeaderBytes.
	MaxHeaderBytes int
	// DrainTimeout is how long Server.Shutdown lets work in flight finish
	// once ctx has ended, before it cancels it. Default DefaultDrainTimeout.
	DrainTimeout time.Duration
	// Listening, when set, is called with the bound address once the
	// address has been accepted and before any request is served: a
	// caller that listens on port 0 learns its port here.
	Listening func(addr net.Addr)
}

// Defaults for ServeOptions.
const (
	DefaultPath              = "/acp"
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultKeepAliveTimeout  = 60 * time.Second
	DefaultMaxHeaderBytes    = 64 << 10
	DefaultDrainTimeout      = 10 * time.Second
)

func (o *ServeOptions) defaults() {
	if o.Path == "" {
		o.Path = DefaultPath
	}
	if o.ReadHeaderTimeout <= 0 {
		o.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if o.KeepAliveTimeout <= 0 {
		o.KeepAliveTimeout = DefaultKeepAliveTimeout
	}
	if o.MaxHeaderBytes <= 0 {
		o.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if o.DrainTimeout <= 0 {
		o.DrainTimeout = DefaultDrainTimeout
	}
}

// ErrUnauthenticatedExposure is what ListenAndServe and Serve return for an
// address other than loopback when the Server has no Auth and
// Options.AllowUnauthenticated is not set.
var ErrUnauthenticatedExposure = errors.New("acphttp: refusing to serve without Options.Auth on an address other than loopback (set Options.AllowUnauthenticated to allow it)")

// ListenAndServe listens on the TCP address addr and serves srv there as
// Serve does. Without Auth (and without Options.AllowUnauthenticated), an
// address other than loopback is refused before listening: ":PORT",
// "0.0.0.0:PORT" and "[::]:PORT" reach every interface. A host name is
// resolved by listening, and refused on its bound address before anything
// is served.
func ListenAndServe(ctx context.Context, addr string, srv *Server, o ServeOptions) error {
	if host, _, err := net.SplitHostPort(addr); err == nil && srv.mustStayLocal() {
		if ip := net.ParseIP(host); (ip != nil && !ip.IsLoopback()) || host == "" {
			return fmt.Errorf("%w: %s", ErrUnauthenticatedExposure, addr)
		}
	}
	ln, err := new(net.ListenConfig).Listen(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	return Serve(ctx, ln, srv, o)
}

// Serve serves srv at o.Path on ln, over HTTP/1.1 and h2c, with the
// timeouts of o and no write or whole-request timeout (event streams and
// prompt turns last as long as they need), until ctx ends; then it calls
// srv.Shutdown, bounded by o.DrainTimeout, and the http.Server's Shutdown,
// bounded by ShutdownCancelWait, and returns. It closes ln. Without Auth (and without
// Options.AllowUnauthenticated), a TCP listener on an address other than
// loopback is refused with ErrUnauthenticatedExposure before anything is
// served.
func Serve(ctx context.Context, ln net.Listener, srv *Server, o ServeOptions) error {
	if srv.mustStayLocal() && !isLocalAddr(ln.Addr()) {
		ln.Close()
		return fmt.Errorf("%w: %s", ErrUnauthenticatedExposure, ln.Addr())
	}
	o.defaults()
	mux := http.NewServeMux()
	mux.Handle(o.Path, srv)
	hs := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: o.ReadHeaderTimeout,
		IdleTimeout:       o.KeepAliveTimeout,
		MaxHeaderBytes:    o.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(srv.log.Handler(), slog.LevelWarn),
		Protocols:         new(http.Protocols),
	}
	hs.Protocols.SetHTTP1(true)
	hs.Protocols.SetUnencryptedHTTP2(true)
	if o.Listening != nil {
		o.Listening(ln.Addr())
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	var err error
	select {
	case err = <-served:
	case <-ctx.Done():
	}
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.DrainTimeout)
	defer cancel()
	// The Server first: its connections still need the HTTP server to
	// carry the answers and client replies of the work they drain. Work
	// cancelled at the drain's deadline is answered, not a failure.
	derr := srv.Shutdown(dctx)
	if errors.Is(derr, context.DeadlineExceeded) {
		derr = nil
	}
	// Then event streams get a short while of their own to deliver what
	// the drain wrote.
	hctx, hcancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownCancelWait)
	defer hcancel()
	return errors.Join(err, derr, hs.Shutdown(hctx))
}

// mustStayLocal reports whether srv may only be served on loopback.
func (s *Server) mustStayLocal() bool { return s.o.Auth == nil && !s.o.AllowUnauthenticated }

// isLocalAddr reports whether a listener's address is reachable from this
// machine only: a loopback IP, or a Unix socket.
func isLocalAddr(a net.Addr) bool {
	switch a := a.(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UnixAddr:
		return true
	}
	return false
}
