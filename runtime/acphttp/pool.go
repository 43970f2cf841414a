package acphttp

import (
	"container/list"
	"errors"
	"net/http"
	"time"
)

// pool holds the connections not in use yet: a WebSocket before its
// initialize arrives, a Streamable HTTP connection until the first request
// after initialize. They count against Options.MaxPendingConnections, not
// MaxConnections, and close after Options.InitTimeout, so that clients that
// open connections and walk away cannot lock out the others.
type pool struct {
	pending list.List // *serverConn, oldest first
	active  int       // connections in use, against MaxConnections
}

// pooled is a connection's place in the pool.
type pooled struct {
	e      *list.Element // in pool.pending while not in use
	timer  *time.Timer   // InitTimeout
	active bool          // counted in pool.active
	close  func(error)   // closes the transport of a connection not in use
}

var (
	errEvicted     = errors.New("acphttp: too many connections not in use; the oldest was closed")
	errInitTimeout = errors.New("acphttp: connection not used within the init timeout")
)

// enterPool adds sc as not in use, with s.mu held, and returns the oldest
// such connection if the pool was full: the caller evicts it.
func (s *Server) enterPool(sc *serverConn) *serverConn {
	var oldest *serverConn
	if s.pool.pending.Len() >= s.o.MaxPendingConnections {
		oldest = s.pool.pending.Front().Value.(*serverConn)
		s.unpool(oldest)
	}
	sc.pooled.e = s.pool.pending.PushBack(sc)
	sc.pooled.timer = time.AfterFunc(s.o.InitTimeout, func() { s.expire(sc) })
	return oldest
}

// unpool takes sc out of the pending list, with s.mu held.
func (s *Server) unpool(sc *serverConn) {
	if sc.pooled.e == nil {
		return
	}
	s.pool.pending.Remove(sc.pooled.e)
	sc.pooled.e = nil
	sc.pooled.timer.Stop()
}

// leavePool forgets a connection that ended, with s.mu held.
func (s *Server) leavePool(sc *serverConn) {
	s.unpool(sc)
	if sc.pooled.active {
		sc.pooled.active = false
		s.pool.active--
	}
}

// expire closes sc if it is still not in use.
func (s *Server) expire(sc *serverConn) {
	s.mu.Lock()
	pending := sc.pooled.e != nil
	s.unpool(sc)
	s.mu.Unlock()
	if pending {
		s.log.Debug("acphttp: closing connection not used in time")
		sc.evict(errInitTimeout)
	}
}

// evict closes a connection taken out of the pool.
func (sc *serverConn) evict(err error) {
	sc.pooled.close(err)
	sc.cancel()
}

// promote moves sc into use, counted against MaxConnections: errLimit if
// the server is full or closing (the caller refuses the request and closes
// sc), errConnClosed if sc was closed meanwhile.
func (s *Server) promote(sc *serverConn) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case sc.pooled.active:
		return nil
	case sc.pooled.e == nil:
		return errConnClosed
	case s.closed || s.pool.active >= s.o.MaxConnections:
		return errLimit
	}
	s.unpool(sc)
	sc.pooled.active = true
	s.pool.active++
	return nil
}

// use returns the Streamable HTTP connection id if principal opened it,
// moving it into use: 404 if it is unknown or closed, 503 (and the
// connection closed) if the server has no room for it.
func (s *Server) use(id, principal string) (*streamConn, int) {
	c := s.lookup(id, principal)
	if c == nil {
		return nil, http.StatusNotFound
	}
	switch err := s.promote(c.sc); err {
	case nil:
		return c, 0
	case errLimit:
		c.shut(errLimit)
		return nil, http.StatusServiceUnavailable
	}
	return nil, http.StatusNotFound
}

func (o *Options) budgetDefaults() {
	if o.InitTimeout <= 0 {
		o.InitTimeout = DefaultInitTimeout
	}
	if o.MaxServerBuffered <= 0 {
		o.MaxServerBuffered = DefaultMaxServerBuffered
	}
	if o.MaxWaitingPosts <= 0 {
		o.MaxWaitingPosts = DefaultMaxWaitingPosts
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = DefaultBodyTimeout
	}
}
