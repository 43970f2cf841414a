package acphttp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"time"
)

// DialOptions configure Dial; the zero value is usable.
type DialOptions struct {
	// Profile picks the profile; "" tries WebSocket first and falls back to
	// Streamable HTTP when the server answers the upgrade with anything but
	// 101 (other than 401 and 403, which are returned as errors).
	Profile Profile
	// Header is sent with every request: credentials, say.
	Header http.Header
	// HTTPClient carries the requests; it must not time out long-lived
	// event streams (leave Timeout 0). Default: a client on
	// http.DefaultTransport with a cookie jar of its own, so that cookies the
	// server sets (load-balancer affinity, say) come back on every request
	// of both profiles, as the RFD requires. For h2c, give it a transport whose Protocols
	// allow only unencrypted HTTP/2 (Streamable HTTP only: WebSocket needs
	// an HTTP/1.1 upgrade).
	HTTPClient *http.Client
	// MaxMessage bounds one message from the agent. Default
	// DefaultClientMaxMessage.
	MaxMessage int
	// StallTimeout bounds how long a write may wait for the server.
	// Default DefaultStallTimeout.
	StallTimeout time.Duration
	// ResumeFor is how long the client tries to resume a Streamable HTTP
	// event stream (GET with Last-Event-ID) or a WebSocket connection (a
	// new socket sending stream/resume) that dropped, with backoff and
	// jitter, before it gives up with a *ResumeError. Default
	// DefaultResumeFor; negative: never resume (a dropped stream or socket
	// ends the connection).
	ResumeFor time.Duration
	// Logger receives the transport's logs. Default: text on os.Stderr.
	Logger *slog.Logger
}

// DefaultClientMaxMessage is DialOptions.MaxMessage's default, the
// TypeScript SDK client's.
const DefaultClientMaxMessage = 32 << 20

// HTTPError is a refused handshake or request: the status and up to 8 KiB
// of the body.
type HTTPError struct {
	Op     string
	Status int
	Body   string
}

func (e *HTTPError) Error() string {
	if e.Body == "" {
		return fmt.Sprintf("acphttp: %s: %d %s", e.Op, e.Status, http.StatusText(e.Status))
	}
	return fmt.Sprintf("acphttp: %s: %d %s: %s", e.Op, e.Status, http.StatusText(e.Status), e.Body)
}

// Dial connects to an /acp endpoint (http, https, ws or wss URL). The
// Streamable HTTP profile sends nothing until the first message, which must
// be initialize; WebSocket connects at once.
func Dial(ctx context.Context, rawURL string, o DialOptions) (*Conn, error) {
	if o.HTTPClient == nil {
		jar, _ := cookiejar.New(nil)
		o.HTTPClient = &http.Client{Jar: jar}
	}
	if o.MaxMessage <= 0 {
		o.MaxMessage = DefaultClientMaxMessage
	}
	if o.StallTimeout <= 0 {
		o.StallTimeout = DefaultStallTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if o.ResumeFor == 0 {
		o.ResumeFor = DefaultResumeFor
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("acphttp: dial %q: %w", rawURL, err)
	}
	switch o.Profile {
	case StreamableHTTP:
		return dialHTTP(u, o)
	case WebSocket:
		return dialWS(ctx, u, o)
	case "":
		c, err := dialWS(ctx, u, o)
		var he *HTTPError
		if err != nil && errors.As(err, &he) && he.Status != http.StatusUnauthorized && he.Status != http.StatusForbidden {
			o.Logger.Debug("acphttp: WebSocket refused, using Streamable HTTP", "status", he.Status)
			return dialHTTP(u, o)
		}
		return c, err
	}
	return nil, fmt.Errorf("acphttp: unknown profile %q", o.Profile)
}

func withScheme(u *url.URL, ws bool) string {
	v := *u
	switch {
	case ws && v.Scheme == "http":
		v.Scheme = "ws"
	case ws && v.Scheme == "https":
		v.Scheme = "wss"
	case !ws && v.Scheme == "ws":
		v.Scheme = "http"
	case !ws && v.Scheme == "wss":
		v.Scheme = "https"
	}
	return v.String()
}
