package acphttp

import (
	"context"

	"github.com/acpgen/acpgen/runtime/internal/peerlog"
	"github.com/coder/websocket"
)

// logEnd logs how a connection's ServeFunc ended: a client that closed the
// connection or went away, and a connection closed by this side, are
// ordinary ends (Debug); any other error is a warning.
func (s *Server) logEnd(c *Conn, err error, ctx context.Context) {
	switch {
	case err == nil:
	case ctx.Err() != nil || peerGone(err):
		s.log.Debug("acphttp: connection ended", "connection", c.id, "err", err)
	default:
		s.log.Warn("acphttp: connection ended with an error", "connection", c.id, "err", err)
	}
}

// peerGone reports whether err means the peer closed the connection or went
// away: a WebSocket closed with 1000, 1001 or no status, or the transport's
// end (see peerlog.Gone).
func peerGone(err error) bool {
	switch websocket.CloseStatus(err) {
	case websocket.StatusNormalClosure, websocket.StatusGoingAway, websocket.StatusNoStatusRcvd:
		return true
	}
	return peerlog.Gone(err)
}
