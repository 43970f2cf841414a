package main

import (
	"context"
	"log/slog"

	acp "github.com/acpgen/acpgen/gen/acp/unstable"
	"github.com/acpgen/acpgen/runtime/dispatch"
	"github.com/acpgen/acpgen/runtime/proxy"
)

// newProxy returns the proxy with this example's policy: no terminals for
// the agent, and every session's tokens counted by m.
func newProxy(m *meter, log *slog.Logger) *proxy.Proxy {
	p := proxy.New(proxy.Options{Logger: log})
	hideTerminals(p)
	m.watch(p)
	return p
}

// hideTerminals keeps the editor's terminals from the agent. initialize
// reaches the agent without clientCapabilities.terminal, so its generated
// gates (or any agent that reads its capabilities) leave terminals alone;
// an agent that sends a terminal method anyway is refused by the proxy, and
// the editor never sees the request.
func hideTerminals(p *proxy.Proxy) {
	proxy.Request(p, acp.AgentMethods.Initialize, func(ctx context.Context, req *acp.InitializeRequest,
		next func(context.Context, *acp.InitializeRequest) (*acp.InitializeResponse, error)) (*acp.InitializeResponse, error) {
		if c := req.ClientCapabilities; c != nil {
			c.Terminal = nil // absent: the schema's default, false
		}
		return next(ctx, req)
	})
	refuse(p, acp.ClientMethods.TerminalCreate)
	refuse(p, acp.ClientMethods.TerminalOutput)
	refuse(p, acp.ClientMethods.TerminalWaitForExit)
	refuse(p, acp.ClientMethods.TerminalKill)
	refuse(p, acp.ClientMethods.TerminalRelease)
}

// refuse answers every request of m with -32601, as a client that does not
// offer the method would.
func refuse[P, R any](p *proxy.Proxy, m *dispatch.Request[P, R]) {
	proxy.Request(p, m, func(context.Context, P, func(context.Context, P) (R, error)) (R, error) {
		var zero R
		return zero, acp.NewError(acp.ErrorCodeMethodNotFound, "Method not found: "+m.Wire+" is refused by this proxy", nil)
	})
}
