// Package acphttp carries ACP over the network: one endpoint (conventionally
// /acp) that serves two profiles, a WebSocket upgrade (one JSON-RPC message
// per text frame) and Streamable HTTP (client messages POSTed, agent messages
// streamed back as server-sent events on one connection-scoped GET stream and
// one GET stream per session).
//
// Both ends hand a [*Conn] to the generated package as its reader and writer,
// so AgentConn and ClientConn are the same as over stdio:
//
//	srv := acphttp.NewServer(func(ctx context.Context, c *acphttp.Conn) error {
//		a := &agent{store: store} // state shared across connections lives in store
//		a.conn = acp.NewAgentConn(a, c, c, acp.ConnOptions{})
//		return a.conn.Run(ctx)
//	}, acphttp.Options{Auth: acphttp.BearerToken(token)})
//	err := acphttp.ListenAndServe(ctx, addr, srv, acphttp.ServeOptions{}) // or mux.Handle("/acp", srv)
//
//	c, err := acphttp.Dial(ctx, "http://host/acp", acphttp.DialOptions{})
//	conn := acp.NewClientConn(h, c, c, acp.ConnOptions{})
//
// The wire behaviour follows the official TypeScript SDK 2.4.0
// (experimental/server, http-client, ws-client); docs/transports-and-security.md lists
// every difference from it and from the RFD.
package acphttp
