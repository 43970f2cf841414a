// Package proxy relays ACP between a predecessor (an editor, or the proxy
// before it in a chain) and a successor (an agent, or the next proxy), and
// lets a program intercept any method in either direction with typed
// functions on a generated package's types: an ACP proxy, generic over
// every generated package through its method descriptors
// (acp.AgentMethods, acp.ClientMethods).
//
//	p := proxy.New(proxy.Options{})
//	proxy.Request(p, acp.ClientMethods.TerminalCreate, func(ctx context.Context, req *acp.CreateTerminalRequest,
//		next func(context.Context, *acp.CreateTerminalRequest) (*acp.CreateTerminalResponse, error)) (*acp.CreateTerminalResponse, error) {
//		return nil, &wire.RPCError{Code: wire.CodeMethodNotFound, Message: "terminals are off"}
//	})
//	agent, err := proxy.Command(exec.Command("my-agent"))
//	err = p.Run(ctx, proxy.Stream(os.Stdin, os.Stdout), agent)
//
// A message no interceptor claims is relayed as the same bytes with the
// same id, without being decoded; an answer only to a request relayed the
// other way. The proxy's own requests (an interceptor's next, Call) carry
// string ids under a random 128-bit prefix of the chain's: a peer's
// request under it is refused, and an answer under it counts only from the
// side the request went to and is never relayed. A batch is split into
// its entries and its answers returned as one array. Options.MaxInFlight
// bounds the requests in flight from each side. Messages keep their order in each direction, an intercepted one
// included; each side is read only as fast as the other is written, with
// at most Options.MaxQueued bytes between them. When a side ends, the
// chain ends: every request still waiting is answered with a JSON-RPC
// error naming what ended it, and Run returns that.
//
// Component turns a proxy's connection to a Proxy Chains conductor into
// the two links Run takes. docs/proxies.md describes both ways to run a
// proxy.
package proxy
