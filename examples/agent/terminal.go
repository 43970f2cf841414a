package main

import (
	"context"
	"errors"
	"strconv"

	"github.com/acpgen/acpgen/gen/acp"
)

// terminalWord in a prompt makes the turn run a command in a terminal of the
// client, when the client offers terminals.
const terminalWord = "terminal"

// terminal runs `pwd` in a client terminal and releases it, and returns the
// text the turn streams for it: "[no terminal]" when the client did not
// advertise clientCapabilities.terminal (the generated AgentConn would refuse
// terminal/create locally anyway), "[terminal ID]" when it ran, or
// "[terminal refused CODE]" when the client answered with an error.
func (a *agent) terminal(ctx context.Context, id acp.SessionID) (string, error) {
	n := a.conn.Negotiated()
	if !n.Allows("clientCapabilities.terminal") {
		return "[no terminal]", nil
	}
	t, err := a.conn.TerminalCreate(ctx, &acp.CreateTerminalRequest{SessionID: id, Command: "pwd"})
	var rpc *acp.RPCError
	switch {
	case errors.As(err, &rpc):
		return "[terminal refused " + strconv.Itoa(int(rpc.Code)) + "]", nil
	case err != nil:
		return "", err
	}
	if _, err := a.conn.TerminalRelease(ctx, &acp.ReleaseTerminalRequest{SessionID: id, TerminalID: t.TerminalID}); err != nil {
		return "", err
	}
	return "[terminal " + string(t.TerminalID) + "]", nil
}
