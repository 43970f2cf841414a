package inspect

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/conform"
)

// The test binary doubles as the programs a test puts between a client and
// an agent, chosen by its first argument:
//
//	-helper=inspect:CONFIG:TRACE -- AGENT...   the inspector (Run)
//	-helper=record:FILE -- CMD...              a tap that copies its stdio to
//	                                           CMD's and writes the sha256 of
//	                                           each direction to FILE
//	-helper=burst:N --                         an agent whose prompt turn
//	                                           streams N updates of 1 KiB
//	-helper=huge:KIND --                       an agent whose prompt turn
//	                                           writes one frame of hugeFrame
//	                                           bytes (see hugeLine)
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && strings.HasPrefix(os.Args[1], "-helper=") && os.Args[2] == "--" {
		os.Exit(helper(strings.TrimPrefix(os.Args[1], "-helper="), os.Args[3:]))
	}
	os.Exit(m.Run())
}

func helper(mode string, argv []string) int {
	kind, arg, _ := strings.Cut(mode, ":")
	switch kind {
	case "inspect":
		config, trace, _ := strings.Cut(arg, ":")
		return helperInspect(config, trace, argv)
	case "record":
		return helperRecord(arg, argv)
	case "burst":
		var n int
		fmt.Sscan(arg, &n)
		return helperBurst(n)
	case "huge":
		return helperAgent(func(w io.Writer) { w.Write(hugeLine(arg)) })
	}
	fmt.Fprintln(os.Stderr, "unknown helper", mode)
	return 2
}

func helperInspect(config, trace string, argv []string) int {
	p, err := LoadProfiles(context.Background(), conform.ProfileOptions{Config: config})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	o := Options{Argv: argv, Profiles: p, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	if trace != "" {
		f, err := os.Create(trace)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer f.Close()
		o.Trace = f
	}
	res, err := Run(context.Background(), o)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return res.ExitStatus
}

// helperRecord is a plain tap, independent of the relay: io.Copy both ways,
// hashing what passes.
func helperRecord(file string, argv []string) int {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	hin, hout := sha256.New(), sha256.New()
	inDone := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.MultiWriter(in, hin), os.Stdin)
		in.Close()
		close(inDone)
	}()
	_, _ = io.Copy(io.MultiWriter(os.Stdout, hout), out)
	_ = cmd.Wait()
	<-inDone // the command's stdin ended before it exited
	sums := fmt.Sprintf("in %s\nout %s\n", hex.EncodeToString(hin.Sum(nil)), hex.EncodeToString(hout.Sum(nil)))
	if err := os.WriteFile(file, []byte(sums), 0o644); err != nil {
		return 1
	}
	return cmd.ProcessState.ExitCode()
}

// helperBurst is an agent whose prompt turn is n agent_message_chunk
// updates of 1 KiB.
func helperBurst(n int) int {
	text := strings.Repeat("x", 1024)
	return helperAgent(func(w io.Writer) {
		for range n {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"%s"}}}}`+"\n", text)
		}
	})
}

// helperAgent is a minimal v1 agent: one session, and a prompt turn that
// writes what turn writes before its response.
func helperAgent(turn func(io.Writer)) int {
	sc := bufio.NewScanner(os.Stdin)
	w := bufio.NewWriter(os.Stdout)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch m.Method {
		case "initialize":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":1,"agentCapabilities":{}}}`+"\n", m.ID)
		case "session/new":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"sessionId":"s1"}}`+"\n", m.ID)
		case "session/prompt":
			turn(w)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"stopReason":"end_turn"}}`+"\n", m.ID)
		}
		if w.Flush() != nil {
			return 1
		}
	}
	return 0
}
