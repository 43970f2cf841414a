package conform

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
)

// The scripted agent a client is checked against lives in the checker's
// own process; what the client starts is a relay that copies its stdin to
// a unix socket the checker listens on, and the socket to its stdout. So
// the checker sees every byte the client writes, scripts every reply, and
// ends the agent's stdout by closing the socket. A socket rather than
// files: it carries both directions and its end of stream is the agent's.

// AgentToken is the argument of a client's command line that stands for
// the agent's command line.
const AgentToken = "{agent}"

// Relay is the scripted agent's process: it copies stdin to the checker's
// socket and the socket to stdout until the checker closes it. The client
// closing stdin is passed on as a half-close.
func Relay(socket string) error {
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return fmt.Errorf("scripted agent: %w", err)
	}
	defer conn.Close()
	go func() {
		_, _ = io.Copy(conn, os.Stdin)
		_ = conn.(*net.UnixConn).CloseWrite()
	}()
	_, err = io.Copy(os.Stdout, conn)
	return err
}

// expandAgent puts the relay's command line where the client's says
// {agent}: an argument that is exactly {agent} becomes the relay's
// arguments, one that contains it (a shell command) their quoted form.
func expandAgent(argv, relay []string) ([]string, error) {
	var out []string
	found := false
	for _, a := range argv {
		switch {
		case a == AgentToken:
			out = append(out, relay...)
			found = true
		case strings.Contains(a, AgentToken):
			q := make([]string, len(relay))
			for i, r := range relay {
				q[i] = "'" + strings.ReplaceAll(r, "'", `'\''`) + "'"
			}
			out = append(out, strings.ReplaceAll(a, AgentToken, strings.Join(q, " ")))
			found = true
		default:
			out = append(out, a)
		}
	}
	if !found {
		return nil, errors.New("the client's command line has no " + AgentToken + ": write it where the client takes the agent's command, e.g. -- ./client " + AgentToken)
	}
	return out, nil
}
