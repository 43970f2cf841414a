package proxy_test

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/runtime/jsonrpc"
)

// helperEnv makes the test binary a scripted agent on stdio: "exit3"
// answers initialize and session/new, then exits with status 3 on the
// first prompt; "burst:N" answers a prompt with N updates of 1 KiB first.
const helperEnv = "ACPGEN_PROXY_TEST_AGENT"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		scriptedAgent(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func scriptedAgent(mode string) {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	burst := 0
	if n, ok := strings.CutPrefix(mode, "burst:"); ok {
		burst, _ = strconv.Atoi(n)
	}
	for {
		line, err := in.ReadString('\n')
		if err != nil {
			return
		}
		env, err := jsonrpc.PeekEnvelope([]byte(line))
		if err != nil || env.ID == nil {
			continue
		}
		switch env.Name {
		case "initialize":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":1}}`+"\n", env.ID)
		case "session/new":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"sessionId":"s1"}}`+"\n", env.ID)
		case "session/prompt":
			if mode == "exit3" {
				out.Flush()
				os.Exit(3)
			}
			text := strings.Repeat("x", 1000)
			for i := range burst {
				fmt.Fprintf(out, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"%d %s"}}}}`+"\n", i, text)
			}
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"stopReason":"end_turn"}}`+"\n", env.ID)
		}
		out.Flush()
	}
}

// helper returns the command line that runs the test binary as a scripted
// agent.
func helper(t *testing.T, mode string) (string, []string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return self, append(os.Environ(), helperEnv+"="+mode)
}
