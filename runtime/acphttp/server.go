package acphttp

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
)

// ServeFunc runs one transport connection: typically it builds an
// acp.AgentConn on c and returns its Run(ctx). ctx ends when the connection
// is closed (by the client, a limit, Close or Shutdown) and carries the
// principal (see PrincipalFrom). Agent state that must outlive a connection,
// such as the sessions session/load looks up, belongs in a store the
// ServeFuncs share.
type ServeFunc func(ctx context.Context, c *Conn) error

// AuthFunc checks a request's credentials and returns who made it. An error
// answers 401; every request of every profile is checked, and a connection
// is only reachable by the principal that opened it.
type AuthFunc func(r *http.Request) (principal string, err error)

// ErrUnauthorized is what BearerToken's and HeaderToken's checks return.
var ErrUnauthorized = errors.New("acphttp: missing or invalid credentials")

// BearerToken accepts requests with "Authorization: Bearer TOKEN"; the
// principal is "bearer".
func BearerToken(token string) AuthFunc {
	return HeaderToken("Authorization", "Bearer "+token)
}

// HeaderToken accepts requests whose header name has exactly value; the
// principal is the header name. The comparison takes constant time.
func HeaderToken(name, value string) AuthFunc {
	return func(r *http.Request) (string, error) {
		got := r.Header.Get(name)
		if value == "" || subtle.ConstantTimeCompare([]byte(got), []byte(value)) != 1 {
			return "", ErrUnauthorized
		}
		return name, nil
	}
}

type principalKey struct{}

// PrincipalFrom returns the principal of the connection whose ServeFunc
// context (or a context derived from it, such as a handler's) is ctx.
func PrincipalFrom(ctx context.Context) string {
	p, _ := ctx.Value(principalKey{}).(string)
	return p
}

// Options configure a Server; the zero value is usable.
type Options struct {
	// Auth, when set, must accept every request; see AuthFunc.
	Auth AuthFunc
	// OriginPatterns lists the other origins (host patterns as in
	// path.Match, or scheme://host) whose browser pages may connect. A
	// request with an Origin header naming another host than its own is
	// refused with 403 otherwise. No CORS headers are ever sent.
	OriginPatterns []string
	// MaxMessage bounds one client message in bytes: a larger POST body is
	// answered 413, a larger WebSocket message closes the socket with 1009.
	// Default DefaultMaxMessage.
	MaxMessage int
	// MaxBuffered bounds the bytes of agent output a Streamable HTTP
	// connection holds for streams its client has not read; at the bound the
	// agent's writes and the client's requests wait. Default
	// jsonrpc.DefaultMaxBuffered. WebSocket output is not queued: each
	// write waits for the socket.
	MaxBuffered int
	// MaxBufferedSessions bounds the session streams of one Streamable HTTP
	// connection that hold output no client receives; past it the
	// connection closes. Default DefaultMaxBufferedSessions.
	MaxBufferedSessions int
	// StallTimeout is how long output may wait for a client that reads
	// none of it before the connection closes. Default DefaultStallTimeout.
	StallTimeout time.Duration
	// IdleTimeout closes a Streamable HTTP connection that has had no open
	// stream and no request for that long, as a client that went away
	// without DELETE would leave it. Default DefaultIdleTimeout.
	IdleTimeout time.Duration
	// PingInterval is how often a WebSocket is pinged; a ping unanswered
	// for as long closes it. Default DefaultPingInterval.
	PingInterval time.Duration
	// MaxConnections bounds the open connections of both profiles; past it
	// new ones are answered 503. Default DefaultMaxConnections.
	MaxConnections int
	// Logger receives the transport's logs. Default: text on os.Stderr.
	Logger *slog.Logger
}

// Defaults for Options.
const (
	DefaultMaxMessage          = 16 << 20
	DefaultMaxBufferedSessions = 1024
	DefaultStallTimeout        = 60 * time.Second
	DefaultIdleTimeout         = 5 * time.Minute
	DefaultPingInterval        = 30 * time.Second
	DefaultMaxConnections      = 1024
)

// keepAlive is how often an idle event stream gets an SSE comment, so that
// proxies do not time it out.
const keepAlive = 15 * time.Second

func (o *Options) defaults() {
	if o.MaxMessage <= 0 {
		o.MaxMessage = DefaultMaxMessage
	}
	if o.MaxBuffered <= 0 {
		o.MaxBuffered = jsonrpc.DefaultMaxBuffered
	}
	if o.MaxBufferedSessions <= 0 {
		o.MaxBufferedSessions = DefaultMaxBufferedSessions
	}
	if o.StallTimeout <= 0 {
		o.StallTimeout = DefaultStallTimeout
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.PingInterval <= 0 {
		o.PingInterval = DefaultPingInterval
	}
	if o.MaxConnections <= 0 {
		o.MaxConnections = DefaultMaxConnections
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
}

// Server serves the /acp endpoint, both profiles, as an http.Handler: each
// transport connection runs its own ServeFunc.
type Server struct {
	serve ServeFunc
	o     Options
	log   *slog.Logger

	mu       sync.Mutex
	closed   bool
	conns    map[string]*serverConn // every open connection, both profiles
	reaping  bool
	wg       sync.WaitGroup // running ServeFuncs
	shutdown chan struct{}  // closed by Close
}

// serverConn is one open connection as the Server tracks it.
type serverConn struct {
	principal string
	stream    *streamConn // nil for a WebSocket
	kill      func()      // closes the transport at Close
	cancel    context.CancelFunc
	// away, when set, marks the transport as closing for a shutdown (a
	// WebSocket closes with 1001), before it drains.
	away  func()
	drain *jsonrpc.Drain // taken by the Run the ServeFunc starts
}

// NewServer returns a Server running serve for each connection.
func NewServer(serve ServeFunc, o Options) *Server {
	o.defaults()
	return &Server{serve: serve, o: o, log: o.Logger, conns: map[string]*serverConn{}, shutdown: make(chan struct{})}
}

// ServeHTTP routes a request: a WebSocket upgrade, or a Streamable HTTP
// POST, GET or DELETE.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.originAllowed(r) {
		http.Error(w, "Forbidden origin", http.StatusForbidden)
		return
	}
	principal := ""
	if s.o.Auth != nil {
		p, err := s.o.Auth(r)
		if err != nil {
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		principal = p
	}
	switch {
	case r.Method == http.MethodGet && isUpgrade(r):
		s.serveWebSocket(w, r, principal)
	case r.Method == http.MethodPost:
		s.handlePost(w, r, principal)
	case r.Method == http.MethodGet:
		s.handleGet(w, r, principal)
	case r.Method == http.MethodDelete:
		s.handleDelete(w, r, principal)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	}
}

func isUpgrade(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// originAllowed admits requests without Origin (not from a browser), from
// the request's own host, or from an origin OriginPatterns lists.
func (s *Server) originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	scheme, host, ok := strings.Cut(origin, "://")
	if !ok {
		return false
	}
	if strings.EqualFold(host, r.Host) {
		return true
	}
	for _, p := range s.o.OriginPatterns {
		target := host
		if strings.Contains(p, "://") {
			target = scheme + "://" + host
		}
		if m, err := path.Match(strings.ToLower(p), strings.ToLower(target)); err == nil && m {
			return true
		}
	}
	return false
}

// errLimit refuses a connection past MaxConnections or after Close.
var errLimit = errors.New("acphttp: too many connections or shutting down")

// full reports whether a new connection would be refused.
func (s *Server) full() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed || len(s.conns) >= s.o.MaxConnections
}

// open registers a connection and starts its ServeFunc.
func (s *Server) open(c *Conn, sc *serverConn) error {
	s.mu.Lock()
	if s.closed || len(s.conns) >= s.o.MaxConnections {
		s.mu.Unlock()
		return errLimit
	}
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), principalKey{}, c.principal))
	ctx, sc.drain = jsonrpc.WithDrain(ctx)
	sc.cancel = cancel
	s.conns[c.id] = sc
	s.wg.Add(1)
	if sc.stream != nil && !s.reaping {
		s.reaping = true
		go s.reap()
	}
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		defer cancel()
		s.logEnd(c, s.serve(ctx, c), ctx)
		c.Close()
		s.mu.Lock()
		delete(s.conns, c.id)
		s.mu.Unlock()
	}()
	return nil
}

// lookup returns the Streamable HTTP connection id, if principal opened it.
// Another principal's connection is reported as unknown, not forbidden, so
// that ids cannot be probed.
func (s *Server) lookup(id, principal string) *streamConn {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.conns[id]
	if sc == nil || sc.stream == nil || sc.principal != principal {
		return nil
	}
	return sc.stream
}

// reap closes Streamable HTTP connections idle for IdleTimeout.
func (s *Server) reap() {
	t := time.NewTicker(max(s.o.IdleTimeout/4, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-s.shutdown:
			return
		case now := <-t.C:
			s.mu.Lock()
			var idle []*streamConn
			for _, sc := range s.conns {
				if sc.stream != nil && sc.stream.idleSince(now) >= s.o.IdleTimeout {
					idle = append(idle, sc.stream)
				}
			}
			s.mu.Unlock()
			for _, c := range idle {
				s.log.Info("acphttp: closing idle connection", "connection", c.id)
				c.shut(errIdle)
			}
		}
	}
}

var errIdle = errors.New("acphttp: connection idle")

func newConnectionID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
