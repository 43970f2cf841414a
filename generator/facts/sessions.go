package facts

// SessionScope decides whether a method's messages belong to a session
// where the schema leaves it open: its params have a sessionId member that
// is optional or nullable. The schema decides every other method: a
// required, non-null sessionId makes it session-scoped
// (ir.Method.SessionScoped), params without one make it not. A method the
// schema leaves open and no row decides is reported by
// ir.Model.UndecidedSessionScope.
type SessionScope struct {
	Method string
	Scoped bool
	// Reason says why: what the method's description says of the session.
	Reason string
}

// SessionScopes are the rows, for every protocol. No method of the pinned
// schemas needs one: each names its session with a required sessionId or
// names none.
var SessionScopes []SessionScope
