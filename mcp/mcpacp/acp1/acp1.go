// Package acp1 adapts mcpacp to the generated v1 unstable package
// (gen/acp/unstable): the typed mcp/message handler methods of each side,
// and the acp declarations of session/new, load, resume and fork.
package acp1

import (
	"context"
	"encoding/json"

	"github.com/acpgen/acpgen/gen/acp/unstable"
	"github.com/acpgen/acpgen/mcp/mcpacp"
)

// Serve answers an mcp/message request through p: call it from the
// ClientHandler's MCPMessage method.
func Serve(ctx context.Context, p *mcpacp.Provider, req *unstable.MessageMCPRequest) (*unstable.MessageMCPResponse, error) {
	var env mcpacp.Envelope
	if err := convert(req, &env); err != nil {
		return nil, err
	}
	out, err := p.Serve(ctx, &env)
	if err != nil {
		return nil, err
	}
	res := new(unstable.MessageMCPResponse)
	if err := convert(out, res); err != nil {
		return nil, err
	}
	return res, nil
}

// Notify hands an mcp/message notification to c: call it from the
// AgentHandler's MCPMessage method.
func Notify(c *mcpacp.Caller, n *unstable.MessageMCPNotification) {
	var env mcpacp.Envelope
	if convert(n, &env) == nil {
		c.HandleNotification(&env)
	}
}

// Advertised reports whether the agent's initialize result advertises MCP
// over ACP (agentCapabilities.mcpCapabilities.acp).
func Advertised(res *unstable.InitializeResponse) bool {
	if res == nil || res.AgentCapabilities == nil || res.AgentCapabilities.MCPCapabilities == nil {
		return false
	}
	acp := res.AgentCapabilities.MCPCapabilities.ACP
	return acp != nil && *acp
}

// Declarations returns the acp declarations of regs for mcpServers, or none
// when the agent did not advertise MCP over ACP in res.
func Declarations(res *unstable.InitializeResponse, regs ...*mcpacp.Registration) []unstable.MCPServer {
	if !Advertised(res) {
		return nil
	}
	out := make([]unstable.MCPServer, 0, len(regs))
	for _, r := range regs {
		out = append(out, unstable.NewMCPServerACP(unstable.MCPServerACP{Name: r.Name, ServerID: unstable.MCPServerACPID(r.ServerID)}))
	}
	return out
}

// AdvertisedHTTP reports whether the agent's initialize result advertises
// MCP servers over HTTP (agentCapabilities.mcpCapabilities.http).
func AdvertisedHTTP(res *unstable.InitializeResponse) bool {
	if res == nil || res.AgentCapabilities == nil || res.AgentCapabilities.MCPCapabilities == nil {
		return false
	}
	h := res.AgentCapabilities.MCPCapabilities.HTTP
	return h != nil && *h
}

// DeclarationsOrHTTP returns the acp declarations of regs when the agent
// advertised MCP over ACP; otherwise, when it advertised MCP over HTTP, an
// http declaration of each registration's loopback endpoint
// (Registration.HTTPEndpoint) with its bearer token in an Authorization
// header; otherwise none.
func DeclarationsOrHTTP(res *unstable.InitializeResponse, regs ...*mcpacp.Registration) ([]unstable.MCPServer, error) {
	if Advertised(res) || !AdvertisedHTTP(res) {
		return Declarations(res, regs...), nil
	}
	out := make([]unstable.MCPServer, 0, len(regs))
	for _, r := range regs {
		ep, err := r.HTTPEndpoint()
		if err != nil {
			return nil, err
		}
		out = append(out, unstable.NewMCPServerHTTP(unstable.MCPServerHTTP{
			Name:    r.Name,
			URL:     ep.URL,
			Headers: []unstable.HTTPHeader{{Name: "Authorization", Value: "Bearer " + ep.Token}},
		}))
	}
	return out, nil
}

// ACPServers returns the acp declarations among servers (as session/new,
// load, resume or fork carried them): name and serverId to Connect to.
func ACPServers(servers []unstable.MCPServer) []unstable.MCPServerACP {
	var out []unstable.MCPServerACP
	for _, s := range servers {
		if s.ACP != nil {
			out = append(out, *s.ACP)
		}
	}
	return out
}

// convert re-encodes v into out through their JSON forms.
func convert(v, out any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}
