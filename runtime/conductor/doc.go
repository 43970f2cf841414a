// Package conductor runs an ACP Proxy Chain (the unstable schema's
// proxy/initialize and proxy/successor, or the Rust SDK's _proxy/ names) for an editor that knows nothing
// about proxies: it starts the components (proxies, then the agent), speaks
// to each over its stdin and stdout, and presents the chain to the editor as
// one agent on a pair of streams.
//
// # Routing
//
// Positions: the editor is 0, the components 1 to n, the agent n.
//
//   - The editor's messages go to component 1 as they are.
//   - A component's proxy/successor request or notification is unwrapped
//     and its method and params go, as a message of their own, to the
//     component's successor. The envelope's _meta is hop-local and never
//     copied.
//   - Any other message a component sends goes to its predecessor: as it
//     is to the editor, wrapped in a proxy/successor envelope (without
//     _meta) to a proxy.
//   - An initialize request going down the chain reaches a component that
//     has a successor as proxy/initialize, with the same params; the agent
//     gets initialize. The editor gets component 1's answer. The protocol
//     version is passed on as the editor asked for it: the conductor reads
//     no params.
//   - Every request the conductor sends on a connection carries the
//     conductor's own id there (integers from 1), so the editor's ids,
//     the components' and the conductor's never collide. A response goes
//     back under the id of the request it answers, its result or error
//     exactly as sent: a proxy/successor request's answer is its wrapped
//     request's.
//   - $/cancel_request is per hop: a peer's cancel of a request the
//     conductor forwarded makes the conductor cancel its own request, with
//     its own id, on the connection it sent it on. No id travels further;
//     a wrapped $/cancel_request is refused. session/cancel is an ordinary
//     notification.
//
// # Errors the conductor owns
//
// These are JSON-RPC errors of the conductor's, never wrapped results:
//
//   - a proxy/successor envelope that is not an object with a string
//     method (and params an object, an array, null or absent), or that wraps
//     a proxy/ method or $/cancel_request: -32602;
//   - proxy/successor from the agent, which has no successor: -32601;
//   - a proxy/ method from the editor, to which the chain is an agent:
//     -32601;
//   - a frame that is not JSON-RPC: -32700 or -32600, as a jsonrpc.Conn
//     answers it; a request whose id is longer than jsonrpc.MaxIDLength: -32600,
//     id null;
//   - more than jsonrpc.MaxAwaited unanswered requests on one connection:
//     jsonrpc.CodeOverloaded;
//   - the chain's end: once a component exits, every request of the
//     editor's still waiting, and every later one, is answered with
//     EndedError (-32603, naming the component and its exit status).
//
// A notification that breaks these rules cannot be answered: it is
// dropped, with a rate-limited warning on Options.Logger.
//
// # Order and memory
//
// Each connection is read by one goroutine, which writes each frame
// through to its destination before reading the next: what one component
// sends to another arrives in the order sent (a turn's updates before its
// response), and a destination that does not read holds its sender back
// (pipe backpressure) instead of filling a queue. Nothing is queued: a
// reader holds the frame it routes, its 64 KiB read buffer and the copy it
// writes, which it lets go once it is larger than the read buffer; the
// conductor's tables hold an id pair per unanswered request (each id at
// most jsonrpc.MaxIDLength bytes), at most jsonrpc.MaxAwaited per connection.
//
// Components must read their stdin while they write their stdout, as every
// JSON-RPC peer over stdio does: the conductor's answers to a component
// travel on the component's stdin.
package conductor
