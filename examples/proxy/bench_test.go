package main

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/runtime/proxy"
)

// BenchmarkUpdates relays b.N agent_message_chunk updates from the agent's
// side to the editor's: through a proxy that intercepts nothing, and
// through this example's policy, which decodes each update to find usage.
// Compare the two as a ratio of one run.
func BenchmarkUpdates(b *testing.B) {
	const update = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a word or two of the reply"}}}}` + "\n"
	for _, tc := range []struct {
		name string
		p    func() *proxy.Proxy
	}{
		{"relay", func() *proxy.Proxy { return proxy.New(proxy.Options{}) }},
		{"policy", func() *proxy.Proxy {
			log := slog.New(slog.DiscardHandler)
			return newProxy(newMeter(log), log)
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			fromEditor, editorOut := io.Pipe()
			editorIn, toEditor := io.Pipe()
			agentIn, toAgent := io.Pipe()
			fromAgent, agentOut := io.Pipe()
			go io.Copy(io.Discard, agentIn)
			done := make(chan error, 1)
			go func() {
				done <- tc.p().Run(context.Background(), proxy.Stream(fromEditor, toEditor), proxy.Stream(fromAgent, toAgent))
			}()
			br := bufio.NewReader(editorIn)
			b.SetBytes(int64(len(update)))
			b.ResetTimer()
			go func() {
				w := bufio.NewWriter(agentOut)
				for range b.N {
					w.WriteString(update)
				}
				w.Flush()
			}()
			for range b.N {
				if line, err := br.ReadString('\n'); err != nil || !strings.Contains(line, "agent_message_chunk") {
					b.Fatalf("%q, %v", line, err)
				}
			}
			b.StopTimer()
			editorOut.Close()
			agentOut.Close()
			<-done
		})
	}
}
