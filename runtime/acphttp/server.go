package acphttp

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path"
	"slices"
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
// is only reachable by the principal that opened it. The principal names
// whoever holds the credentials: an agent keys what outlives a connection
// (sessions session/load finds) by it.
type AuthFunc func(r *http.Request) (principal string, err error)

// ErrUnauthorized is what BearerToken's and HeaderToken's checks return.
var ErrUnauthorized = errors.New("acphttp: missing or invalid credentials")

// BearerToken accepts requests with "Authorization: Bearer TOKEN" for any of
// tokens (empty ones are ignored; with none, every request is refused). Each
// token is a principal of its own, named "bearer:" and the first 16 hex
// digits of the token's SHA-256: stable across restarts and the order of
// tokens, and it does not give the token away. The presented token is
// compared with every one in constant time.
func BearerToken(tokens ...string) AuthFunc {
	var sums [][sha256.Size]byte
	for _, t := range tokens {
		if t != "" {
			sums = append(sums, sha256.Sum256([]byte(t)))
		}
	}
	return func(r *http.Request) (string, error) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		sum := sha256.Sum256([]byte(got))
		found := -1
		for i := range sums {
			if subtle.ConstantTimeCompare(sum[:], sums[i][:]) == 1 {
				found = i
			}
		}
		if !ok || found < 0 {
			return "", ErrUnauthorized
		}
		return "bearer:" + hex.EncodeToString(sums[found][:8]), nil
	}
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
// context (or a context derived from it, such as a handler's) is ctx. With
// Options.Auth it is what Auth returned. Without Auth, each transport
// connection is a principal of its own, "connection:" and 32 hex digits
// derived from its random connection id: another connection, a reconnect
// included, is always another principal.
func PrincipalFrom(ctx context.Context) string {
	p, _ := ctx.Value(principalKey{}).(string)
	return p
}

// Options configure a Server; the zero value is usable.
type Options struct {
	// Auth, when set, must accept every request; see AuthFunc.
	Auth AuthFunc
	// AllowUnauthenticated lets ListenAndServe and Serve serve without Auth
	// on an address other than loopback, reachable by anyone on the network.
	AllowUnauthenticated bool
	// AllowedHosts lists the names a request's Host may give the server,
	// each "host" (any port) or "host:port", compared without case and
	// without a trailing dot ("[::1]" for IPv6). Empty, only loopback names
	// are accepted: localhost and loopback IP literals (127.0.0.0/8,
	// [::1]), with any port; "localhost." too, the same reserved name in
	// absolute form, which a rebinding page cannot send as its own. AnyHost
	// turns the check off; a non-empty list replaces the loopback names. Any other Host is
	// answered 403 before anything else: a web page that rebinds its own DNS
	// name to the server's address still sends that name. Behind a reverse
	// proxy that forwards the public Host, list the public names.
	AllowedHosts []string
	// OriginPatterns lists the origins besides the server's own whose
	// browser pages may connect: "scheme://host[:port]", or "host[:port]"
	// for the server's own scheme; a missing port is the scheme's default;
	// host and port may hold path.Match patterns ("https://*.example:*");
	// "null" admits the opaque origin "null". Compared without case. A
	// request whose Origin is neither the server's own (the scheme it is
	// served with, r.TLS, and the request's Host, port included) nor listed
	// is refused with 403; a request without Origin is not from a browser
	// page and passes. Behind a TLS-terminating proxy, list the public
	// "https://" origin. No CORS headers are ever sent.
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
	// MaxStreams bounds the Streamable HTTP event streams (GETs with a
	// receiver, connection and session streams) open across the Server;
	// past it a GET is answered 503 with Retry-After. Each stream holds a
	// socket over HTTP/1.1. Default: half of the process's file descriptor
	// limit (RLIMIT_NOFILE; 16,384 stands for it on Windows), at least 16.
	MaxStreams int
	// MaxPrincipalStreams bounds the event streams one principal has open
	// across its connections (without Auth each connection is a principal
	// of its own); past it a GET is answered 429. Default: an eighth of
	// MaxStreams' default, at least 8.
	MaxPrincipalStreams int
	// MaxConnectionStreams bounds the event streams one connection has
	// open, its connection stream included; past it a GET is answered 429.
	// Default: the file descriptor limit / 64, between 8 and 256, at most
	// MaxPrincipalStreams.
	MaxConnectionStreams int
	// SessionStreamGrace is how long the event stream of a session the
	// connection does not know stays open while no request POSTed with the
	// session's Acp-Session-Id awaits its answer; then it ends. A connection
	// knows a session once the agent has named it on the connection (a
	// request or notification for it, or an answer whose result names it,
	// as session/new's does) or has answered with a result a request POSTed
	// with its Acp-Session-Id (session/load, session/resume). Default
	// DefaultSessionStreamGrace.
	SessionStreamGrace time.Duration
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
	// MaxConnections bounds the open connections of both profiles that are
	// in use (a WebSocket past initialize, a Streamable HTTP connection past
	// its first request after initialize); past it new ones are answered
	// 503. Default: a quarter of the process's file descriptor limit (as
	// for MaxStreams), at least 16 and at most DefaultMaxConnections.
	MaxConnections int
	// MaxPendingConnections bounds the connections not in use yet, outside
	// MaxConnections; past it the oldest is closed. Default: an eighth of
	// the file descriptor limit, at least 16 and at most
	// DefaultMaxPendingConnections.
	MaxPendingConnections int
	// InitTimeout closes a connection not in use that long after it opened.
	// Default DefaultInitTimeout.
	InitTimeout time.Duration
	// MaxServerBuffered bounds, across all connections, the bytes of POST
	// bodies admitted and not yet taken by their connection's jsonrpc
	// reader (each plus 4 KiB), of WebSocket messages being read, and of
	// Streamable HTTP output queued and not yet written (each plus 64
	// bytes). Client messages may hold half of it. At the bound POSTs,
	// WebSocket reads and the agent's writes wait; while anything waits,
	// connections whose output nobody has taken for StallTimeout are
	// closed. What a jsonrpc reader holds once it has taken a message is
	// its own MaxBuffered's. Default DefaultMaxServerBuffered.
	MaxServerBuffered int
	// MaxWaitingPosts bounds the POSTs waiting for room under
	// MaxServerBuffered; past it a POST is answered 503 with Retry-After,
	// its body unread. Default DefaultMaxWaitingPosts.
	MaxWaitingPosts int
	// BodyTimeout bounds the time spent reading one POST body or one
	// WebSocket message (waits for room under MaxServerBuffered excepted);
	// past it the request or the socket is closed. Default
	// DefaultBodyTimeout.
	BodyTimeout time.Duration
	// SessionMethods lists the client methods whose Streamable HTTP POST
	// must carry Acp-Session-Id even when its params name no sessionId (one
	// whose params do name a sessionId always must): without it, the POST
	// is answered 400. Nil means DefaultSessionMethods(); an empty list,
	// none.
	SessionMethods []string
	// RetainMessages is how many delivered messages each Streamable HTTP
	// event stream and each WebSocket connection keeps for a client that
	// resumes it (GET with Last-Event-ID; a first stream/resume frame; see
	// docs/transports-and-security.md, "Resumable event streams" and
	// "Resumable WebSocket connections"). Default DefaultRetainMessages;
	// negative keeps none: every resume from before the last message is
	// refused as expired, and a WebSocket connection ends with its socket.
	RetainMessages int
	// RetainFor is how long a delivered message is kept for a resume.
	// Default IdleTimeout: a connection with no open stream lives that
	// long, so a client that comes back within it finds what it missed.
	RetainFor time.Duration
	// MaxRetained bounds the bytes the kept messages hold across the
	// Server (each plus 64 bytes), beside MaxServerBuffered: a message that
	// does not fit evicts its stream's oldest ones, or is not kept (a resume
	// from before it is refused). Default MaxServerBuffered/4.
	MaxRetained int
	// Retention holds the retained messages' bytes: default
	// MemoryRetention. The bounds above apply whatever holds them; a
	// stream's log is read back only by this Server (see Retention).
	Retention Retention
	// ResumeState, when set, returns the messages that tell a client which
	// has just resumed a stream the current state of what the stream
	// carries: for a WebSocket connection or a Streamable HTTP connection's
	// event stream (session "") those of the connection's sessions, for a
	// session's event stream (session its id) that session's. They are
	// sent after the replay and the output held meanwhile, numbered as any
	// other message. acphttp cannot know them: the agent does (v2's
	// session/update state_update; v1 has none).
	ResumeState func(c *Conn, session string) [][]byte
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
	// DefaultMaxConnections caps MaxConnections' default: 10,000 idle
	// WebSocket connections take about 400 MiB of the server's memory
	// (bench/netload; docs/transports-and-security.md).
	DefaultMaxConnections = 10000
	// DefaultMaxPendingConnections caps MaxPendingConnections' default: a
	// client is in the pool only for the round trips between its upgrade
	// or initialize and its first message or request.
	DefaultMaxPendingConnections = 1024
	DefaultInitTimeout           = 10 * time.Second
	// DefaultMaxServerBuffered is 16 messages of DefaultMaxMessage: input
	// may hold half of it, 8 of them, while output keeps the other half,
	// twice a connection's default MaxBuffered.
	DefaultMaxServerBuffered = 256 << 20
	DefaultMaxWaitingPosts   = 1024
	// DefaultBodyTimeout reads DefaultMaxMessage at about 560 KB/s.
	DefaultBodyTimeout = 30 * time.Second
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
	o.budgetDefaults()
	o.fdDefaults()
	o.retainDefaults()
	if o.SessionMethods == nil {
		o.SessionMethods = defaultSessionMethods
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
	pool     pool           // connections not in use yet
	budget   *budget
	streamMu sync.Mutex
	streams  streamCount // open event streams
	// sessionScoped is Options.SessionMethods as a set.
	sessionScoped map[string]bool
}

// serverConn is one open connection as the Server tracks it.
type serverConn struct {
	principal string
	stream    *streamConn // nil for a WebSocket
	ws        *wsConn     // nil for Streamable HTTP
	// gate, when set, runs before the ServeFunc: false means the
	// connection is not to be served (a WebSocket whose first message
	// resumed another connection, or was refused).
	gate   func() bool
	kill   func() // closes the transport at Close
	cancel context.CancelFunc
	pooled pooled
	// away, when set, marks the transport as closing for a shutdown (a
	// WebSocket closes with 1001), before it drains.
	away  func()
	drain *jsonrpc.Drain // taken by the Run the ServeFunc starts
}

// NewServer returns a Server running serve for each connection.
func NewServer(serve ServeFunc, o Options) *Server {
	o.defaults()
	s := &Server{serve: serve, o: o, log: o.Logger, conns: map[string]*serverConn{}, streams: streamCount{byPrincipal: map[string]int{}}, shutdown: make(chan struct{}), sessionScoped: map[string]bool{}}
	for _, m := range o.SessionMethods {
		s.sessionScoped[m] = true
	}
	s.budget = newBudget(int64(o.MaxServerBuffered), o.MaxWaitingPosts, o.StallTimeout, s.shedStalled)
	s.budget.retainMax = int64(o.MaxRetained)
	return s
}

// ServeHTTP routes a request: a WebSocket upgrade, or a Streamable HTTP
// POST, GET or DELETE.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.hostAllowed(r.Host) {
		http.Error(w, "Forbidden host", http.StatusForbidden)
		return
	}
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
// the server's own origin, or from an origin OriginPatterns lists.
func (s *Server) originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	self := "http"
	if r.TLS != nil {
		self = "https"
	}
	if strings.EqualFold(origin, "null") {
		return slices.ContainsFunc(s.o.OriginPatterns, func(p string) bool { return strings.EqualFold(p, "null") })
	}
	o, ok := parseOrigin(origin, "")
	if !ok {
		return false
	}
	if own, ok := parseOrigin(self+"://"+r.Host, ""); ok && o == own {
		return true
	}
	for _, p := range s.o.OriginPatterns {
		if strings.EqualFold(p, "null") {
			continue
		}
		if pat, ok := parseOrigin(p, self); ok && pat.match(o) {
			return true
		}
	}
	return false
}

// AnyHost in Options.AllowedHosts accepts every Host.
const AnyHost = "*"

// hostAllowed reports whether a request's Host names the server by a name
// Options.AllowedHosts accepts.
func (s *Server) hostAllowed(hostport string) bool {
	host, port, ok := splitHostPort(hostport)
	if !ok || host == "" {
		return false
	}
	host = canonicalHost(host)
	if len(s.o.AllowedHosts) == 0 {
		return isLoopbackName(host)
	}
	for _, e := range s.o.AllowedHosts {
		if e == AnyHost {
			return true
		}
		if eh, ep, ok := splitHostPort(e); ok && canonicalHost(eh) == host && (ep == "" || ep == port) {
			return true
		}
	}
	return false
}

// isLoopbackName reports whether a canonical host names this machine in a
// way no DNS answer can change: "localhost" (resolved locally, never
// delegated) or a loopback IP literal. Its absolute form "localhost." is
// accepted too, as canonicalHost strips the dot: it names the same
// reserved host, and a rebinding page can only send a name it controls.
func isLoopbackName(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// canonicalHost lowercases a host and drops the trailing dot of an
// absolute DNS name.
func canonicalHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// splitHostPort splits "host", "host:port", "[v6]" or "[v6]:port"; unlike
// net.SplitHostPort the port is optional.
func splitHostPort(hp string) (host, port string, ok bool) {
	if strings.HasPrefix(hp, "[") {
		end := strings.IndexByte(hp, ']')
		if end < 0 {
			return "", "", false
		}
		host, rest := hp[1:end], hp[end+1:]
		if rest == "" {
			return host, "", true
		}
		if rest[0] != ':' {
			return "", "", false
		}
		return host, rest[1:], true
	}
	if strings.Count(hp, ":") > 1 {
		return "", "", false // IPv6 without brackets
	}
	host, port, _ = strings.Cut(hp, ":")
	return host, port, true
}

// origin is a serialized origin split for comparison, lowercased, the port
// always given.
type origin struct{ scheme, host, port string }

// parseOrigin parses "scheme://host[:port]", or "host[:port]" with scheme
// when it is not "". A missing port is the scheme's default.
func parseOrigin(s, scheme string) (origin, bool) {
	if sch, rest, ok := strings.Cut(s, "://"); ok {
		scheme, s = sch, rest
	}
	host, port, ok := splitHostPort(s)
	if !ok || scheme == "" || host == "" || strings.ContainsAny(s, "/?#@") {
		return origin{}, false
	}
	scheme = strings.ToLower(scheme)
	if port == "" {
		switch scheme {
		case "http", "ws":
			port = "80"
		case "https", "wss":
			port = "443"
		}
	}
	return origin{scheme, strings.ToLower(host), port}, true
}

// match reports whether o, a pattern, matches the origin x: the same
// scheme, host and port matching as in path.Match.
func (o origin) match(x origin) bool {
	if o.scheme != x.scheme {
		return false
	}
	h, err := path.Match(o.host, x.host)
	if err != nil || !h {
		return false
	}
	p, err := path.Match(o.port, x.port)
	return err == nil && p
}

// errLimit refuses a connection past MaxConnections or after Close.
var errLimit = errors.New("acphttp: too many connections or shutting down")

// full reports whether a new connection would be refused.
func (s *Server) full() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed || s.pool.active >= s.o.MaxConnections
}

// open registers a connection, in the pool of those not in use yet, and
// starts its ServeFunc.
func (s *Server) open(c *Conn, sc *serverConn) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errLimit
	}
	if s.o.Auth == nil {
		c.principal = connectionPrincipal(c.id)
		sc.principal = c.principal
	}
	evicted := s.enterPool(sc)
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
	if evicted != nil {
		go evicted.evict(errEvicted) // a WebSocket's close waits for its peer
	}
	go func() {
		defer s.wg.Done()
		defer cancel()
		if sc.gate != nil && !sc.gate() {
			s.mu.Lock()
			delete(s.conns, c.id)
			s.leavePool(sc)
			s.mu.Unlock()
			return
		}
		err := s.serve(ctx, c)
		s.logEnd(c, err, ctx)
		c.closeEnded(err, ctx)
		if sc.stream != nil {
			sc.stream.dropLogs() // nothing can resume a connection that ended
		}
		s.mu.Lock()
		delete(s.conns, c.id)
		s.leavePool(sc)
		s.mu.Unlock()
	}()
	return nil
}

// lookup returns the Streamable HTTP connection id, if principal opened it.
// Another principal's connection is reported as unknown, not forbidden, so
// that ids cannot be probed. Without Auth the connection is its own
// principal and its unguessable id the credential.
func (s *Server) lookup(id, principal string) *streamConn {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.conns[id]
	if sc == nil || sc.stream == nil || (s.o.Auth != nil && sc.principal != principal) {
		return nil
	}
	return sc.stream
}

// reap closes Streamable HTTP connections idle for IdleTimeout and drops
// what their streams have retained past RetainFor.
func (s *Server) reap() {
	t := time.NewTicker(max(min(s.o.IdleTimeout, s.o.RetainFor)/4, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-s.shutdown:
			return
		case now := <-t.C:
			s.mu.Lock()
			var idle, live []*streamConn
			for _, sc := range s.conns {
				if sc.stream != nil && sc.stream.idleSince(now) >= s.o.IdleTimeout {
					idle = append(idle, sc.stream)
				} else if sc.stream != nil {
					live = append(live, sc.stream)
				}
			}
			s.mu.Unlock()
			for _, c := range live {
				c.trimLogs(now)
			}
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

// connectionPrincipal names an unauthenticated connection's principal after
// its id, hashed: the principal may be logged, and the id of a Streamable
// HTTP connection is what reaches it.
func connectionPrincipal(id string) string {
	sum := sha256.Sum256([]byte(id))
	return "connection:" + hex.EncodeToString(sum[:16])
}
