package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// parsed is what a command's Action saw.
type parsed struct {
	command string
	args    []string
	set     map[string]string // flag name: value as given
}

// recordingApp is app() with every Action replaced by one that records the
// parse, so that parsing is tested without running anything.
func recordingApp(got *parsed) (*cli.App, []string) {
	a := app()
	a.Writer, a.ErrWriter = io.Discard, io.Discard
	var leaves []string
	var walk func(cmds []*cli.Command, parent string)
	walk = func(cmds []*cli.Command, parent string) {
		for _, c := range cmds {
			name := strings.TrimSpace(parent + " " + c.Name)
			if c.Action != nil {
				leaves = append(leaves, name)
				c.Action = func(ctx *cli.Context) error {
					*got = parsed{command: name, args: ctx.Args().Slice(), set: map[string]string{}}
					for _, f := range c.Flags {
						if n := f.Names()[0]; ctx.IsSet(n) {
							got.set[n] = fmt.Sprint(ctx.Value(n))
						}
					}
					return nil
				}
			}
			walk(c.Subcommands, name)
		}
	}
	walk(a.Commands, "")
	return a, leaves
}

// valueFlag is a flag of c that takes a value, and a value it accepts.
func valueFlag(c *cli.Command) (name, value string, ok bool) {
	for _, f := range c.Flags {
		d, isDoc := f.(cli.DocGenerationFlag)
		if !isDoc || !d.TakesValue() {
			continue
		}
		switch f.(type) {
		case *cli.StringFlag, *cli.StringSliceFlag:
			return f.Names()[0], "x", true
		case *cli.DurationFlag:
			return f.Names()[0], "3s", true
		case *cli.IntFlag:
			return f.Names()[0], "7", true
		}
	}
	return "", "", false
}

func commandAt(a *cli.App, path string) *cli.Command {
	cmds := a.Commands
	var c *cli.Command
	for _, w := range strings.Fields(path) {
		c = findCommand(cmds, w)
		cmds = c.Subcommands
	}
	return c
}

// Every command without an agent command line takes its flags before and
// after its arguments, and "--" ends its flags.
func TestFlagsAfterArguments(t *testing.T) {
	var got parsed
	a, leaves := recordingApp(&got)
	tried := 0
	for _, name := range leaves {
		if slices.Contains(agentCommandLines, name) {
			continue
		}
		flag, value, ok := valueFlag(commandAt(a, name))
		if !ok {
			continue
		}
		tried++
		path := append([]string{"acpgen"}, strings.Fields(name)...)
		for _, tail := range [][]string{
			{"ARG", "--" + flag, value},
			{"--" + flag, value, "ARG"},
			{"ARG", "--" + flag + "=" + value},
			{"-" + flag, value, "ARG", "ARG2"},
		} {
			got = parsed{}
			argv := append(slices.Clone(path), tail...)
			if err := runApp(context.Background(), a, argv); err != nil {
				t.Errorf("%q: %v", argv, err)
				continue
			}
			want := []string{"ARG"}
			if slices.Contains(tail, "ARG2") {
				want = append(want, "ARG2")
			}
			if got.command != name || !slices.Equal(got.args, want) || got.set[flag] != value && got.set[flag] != "["+value+"]" {
				t.Errorf("%q: ran %q with args %q and flags %v; want args %q and --%s %s", argv, got.command, got.args, got.set, want, flag, value)
			}
		}
		got = parsed{}
		argv := append(slices.Clone(path), "ARG", "--", "--"+flag, value)
		if err := runApp(context.Background(), a, argv); err != nil {
			t.Errorf("%q: %v", argv, err)
		} else if want := []string{"ARG", "--" + flag, value}; !slices.Equal(got.args, want) || len(got.set) != 0 {
			t.Errorf("%q: args %q and flags %v; want args %q and no flags", argv, got.args, got.set, want)
		}
	}
	// As docs/inspect.md and the command's own hint write it.
	got = parsed{}
	if err := runApp(context.Background(), a, []string{"acpgen", "inspect", "report", "trace.jsonl", "-o", "trace.html"}); err != nil || !slices.Equal(got.args, []string{"trace.jsonl"}) || got.set["o"] != "trace.html" {
		t.Errorf("inspect report trace.jsonl -o trace.html: %v, args %q, flags %v", err, got.args, got.set)
	}
	// Every command that has both arguments and flags is among them.
	for _, name := range []string{"inspect report", "schema diff", "apidiff", "generate", "schema pull", "scaffold agent", "release", "overlay status"} {
		if !slices.Contains(leaves, name) {
			t.Errorf("command %q not found", name)
		}
	}
	if tried < 15 {
		t.Errorf("only %d commands tried", tried)
	}
}

// The commands that take an agent's command line take their flags before
// it: a flag after the agent command is the agent's.
func TestAgentCommandLineKeepsFlagsFirst(t *testing.T) {
	var got parsed
	a, _ := recordingApp(&got)
	for _, name := range agentCommandLines {
		flag, value, ok := valueFlag(commandAt(a, name))
		if !ok {
			t.Fatalf("%s has no flag that takes a value", name)
		}
		for _, argv := range [][]string{
			{"AGENT", "--" + flag, value},
			{"--", "AGENT", "--" + flag, value},
		} {
			got = parsed{}
			full := append(append([]string{"acpgen"}, strings.Fields(name)...), argv...)
			if err := runApp(context.Background(), a, full); err != nil {
				t.Fatalf("%q: %v", full, err)
			}
			want := []string{"AGENT", "--" + flag, value}
			if got.command != name || !slices.Equal(got.args, want) || len(got.set) != 0 {
				t.Errorf("%q: ran %q with args %q, flags %v; want args %q, no flags", full, got.command, got.args, got.set, want)
			}
		}
	}
}

// TestUsageLinesRun runs every command's usage line, as its --help prints
// it, with its placeholders filled in: each alternative the line offers
// reaches the command with the arguments written, and "[command options]"
// stands for a flag of the command.
func TestUsageLinesRun(t *testing.T) {
	var got parsed
	a, leaves := recordingApp(&got)
	for _, name := range leaves {
		out, err := run(t, append(strings.Fields(name), "--help")...)
		if err != nil {
			t.Fatalf("%s --help: %v", name, err)
		}
		_, after, ok := strings.Cut(out, "USAGE:\n")
		if !ok {
			t.Fatalf("%s --help has no USAGE:\n%s", name, out)
		}
		line := strings.TrimSpace(strings.SplitN(after, "\n", 2)[0])
		prefix := "acpgen " + name
		if !strings.HasPrefix(line, prefix) {
			t.Fatalf("%s: usage line %q does not start with %q", name, line, prefix)
		}
		for _, alt := range strings.Split(strings.TrimPrefix(line, prefix), "|") {
			argv, wantArgs, wantFlag := usageArgv(t, commandAt(a, name), alt)
			got = parsed{}
			full := append(append([]string{"acpgen"}, strings.Fields(name)...), argv...)
			if err := runApp(context.Background(), a, full); err != nil {
				t.Errorf("usage %q as %q: %v", line, full, err)
				continue
			}
			if got.command != name || !slices.Equal(got.args, wantArgs) {
				t.Errorf("usage %q as %q: ran %q with args %q, want %q", line, full, got.command, got.args, wantArgs)
			}
			if wantFlag != "" && got.set[wantFlag] == "" {
				t.Errorf("usage %q as %q: --%s not set (flags %v)", line, full, wantFlag, got.set)
			}
		}
	}
}

// usageArgv fills in one alternative of a usage line: "[command options]"
// becomes a flag of c that takes a value, a flag's placeholder a value, a
// bare placeholder (OLD, TRACE, [ARGS]) an argument.
func usageArgv(t *testing.T, c *cli.Command, alt string) (argv, args []string, flag string) {
	alt = strings.ReplaceAll(alt, "[command options]", "OPTIONS")
	dashes := false
	words := strings.Fields(alt)
	for i := 0; i < len(words); i++ {
		w := strings.Trim(words[i], "[]")
		switch {
		case w == "OPTIONS":
			if name, value, ok := valueFlag(c); ok {
				argv, flag = append(argv, "--"+name, value), name
			}
		case w == "--":
			argv, dashes = append(argv, w), true
		case strings.HasPrefix(w, "-") && !dashes:
			argv = append(argv, w)
			if takesValue(c, strings.TrimLeft(w, "-")) && i+1 < len(words) {
				i++
				argv = append(argv, strings.ToLower(strings.Trim(words[i], "[]")))
			}
		default:
			argv = append(argv, strings.ToLower(w))
			args = append(args, strings.ToLower(w))
		}
	}
	if len(argv) > 0 && argv[0] == "--" && flag != "" {
		t.Fatalf("usage %q: options after --", alt)
	}
	return argv, args, flag
}
