//go:build unix

// Command realagents scores the real ACP agents published on npm with
// acpgen conform. It installs each agent into a temporary npm prefix, runs
// `acpgen conform agent --json` on it with no credentials, a clean HOME and
// a folder without acpgen.json (the stable channel of the release acpgen was
// tested with; the v2 channel too for an agent that negotiates version 2),
// writes what it saw to results.json and renders the table of
// docs/conform.md from it (TestDocTable checks that the two agree).
//
//	go run ./conform/realagents [-o FILE] [-doc FILE] [-timeout 20s] [-only NAME]
//
// It needs npm and the registry, installs about a gigabyte and takes
// minutes, so neither CI nor test.sh runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/acpgen/acpgen/conform"
)

// agent is one npm package serving an ACP agent over stdio.
type agent struct {
	Name    string   // as the table names it
	Package string   // the npm package
	Version string   // the version to install (the nearest one when it is gone)
	Bin     string   // the executable the package puts in node_modules/.bin
	Args    []string // its flags for ACP over stdio
}

// agents are the real agents the table scores.
var agents = []agent{
	{Name: "claude-agent-acp", Package: "@agentclientprotocol/claude-agent-acp", Version: "0.101.0", Bin: "claude-agent-acp"},
	{Name: "codex-acp", Package: "@agentclientprotocol/codex-acp", Version: "2.6.0", Bin: "codex-acp"},
	{Name: "codex-acp (Zed)", Package: "@zed-industries/codex-acp", Version: "0.16.0", Bin: "codex-acp"},
	{Name: "gemini-cli", Package: "@google/gemini-cli", Version: "0.61.0", Bin: "gemini", Args: []string{"--acp"}},
}

// Paths of the committed results and the document their table lives in,
// relative to the module root.
const (
	resultsFile = "conform/realagents/results.json"
	docFile     = "docs/conform.md"
)

func main() {
	out := flag.String("o", resultsFile, "write the results here (relative to the module root)")
	doc := flag.String("doc", docFile, "render the table into this Markdown file (relative to the module root); empty: do not")
	timeout := flag.Duration("timeout", 20*time.Second, "conform's per-case --timeout")
	only := flag.String("only", "", "score only the agent of this name, keeping the other agents' runs of the results file")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *out, *doc, *timeout, *only); err != nil {
		fmt.Fprintln(os.Stderr, "realagents:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out, doc string, timeout time.Duration, only string) error {
	root, err := moduleRoot(ctx)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "acpgen-realagents-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	s := &scorer{root: root, tmp: tmp, timeout: timeout}
	if err := s.prepare(ctx); err != nil {
		return err
	}
	res := &Results{Node: s.node, Date: time.Now().UTC().Format(time.DateOnly), Timeout: timeout.String(), MustKinds: conform.MustKindsFingerprint()}
	for _, a := range agents {
		if only != "" && a.Name != only {
			continue
		}
		res.Runs = append(res.Runs, s.score(ctx, a)...)
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if only != "" {
		// One agent re-scored: the others keep their committed runs.
		old, err := readResults(filepath.Join(root, out))
		if err != nil {
			return err
		}
		res.Runs = old.merge(only, res.Runs)
	}
	if err := res.write(filepath.Join(root, out)); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "realagents: wrote %s\n", out)
	if doc == "" {
		return nil
	}
	if err := updateDoc(filepath.Join(root, doc), res); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "realagents: rendered its table into %s\n", doc)
	return nil
}
