package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/acpgen/acpgen/generator/config"
	"github.com/acpgen/acpgen/internal/didyoumean"
	"github.com/urfave/cli/v2"
)

// agentCommandLines are the commands whose arguments are another program's
// command line: every argument after the first that is not a flag belongs to
// that program, so their flags come first, as the Go flag package reads them.
var agentCommandLines = []string{"conform agent", "conform client", "inspect", "conduct"}

// runApp runs the CLI on args (args[0] is the program), after
// interspersedFlags has moved the flags that follow a command's arguments
// in front of them.
func runApp(ctx context.Context, a *cli.App, args []string) error {
	args, err := interspersedFlags(a, args)
	if err != nil {
		return err
	}
	return a.RunContext(ctx, args)
}

// interspersedFlags lets a command take its flags before and after its
// arguments, as in `inspect report TRACE -o FILE`: urfave/cli v2 parses with
// the Go flag package, which stops at the first argument. It finds the
// command being run, then moves that command's flags (with their values)
// before its arguments, followed by "--" so that an argument is never read
// as a flag; a "--" in args still ends the flags. Commands in
// agentCommandLines are left alone. A word in the place of a command that
// names none is a usage error with the nearest command suggested.
func interspersedFlags(a *cli.App, args []string) ([]string, error) {
	if len(args) < 2 {
		return args, nil
	}
	cmds, path, rest := a.Commands, []string{}, args[1:]
	var cur *cli.Command
	for len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		if rest[0] == "help" || rest[0] == "h" {
			return args, nil // urfave/cli's help command
		}
		next := findCommand(cmds, rest[0])
		if next == nil {
			if cur == nil || (hasSubcommands(cur) && cur.Action == nil) {
				return nil, unknownCommand(path, cmds, rest[0])
			}
			break
		}
		cur, cmds, path, rest = next, next.Subcommands, append(path, next.Name), rest[1:]
	}
	if cur == nil || hasSubcommands(cur) || slices.Contains(agentCommandLines, strings.Join(path, " ")) {
		return args, nil
	}
	var flags, positional []string
	for i := 0; i < len(rest); i++ {
		s := rest[i]
		switch {
		case s == "--":
			positional = append(positional, rest[i+1:]...)
			i = len(rest)
		case len(s) < 2 || s[0] != '-':
			positional = append(positional, s)
		default:
			flags = append(flags, s)
			if !strings.Contains(s, "=") && takesValue(cur, strings.TrimLeft(s, "-")) && i+1 < len(rest) {
				i++
				flags = append(flags, rest[i])
			}
		}
	}
	out := append(slices.Clone(args[:len(args)-len(rest)]), flags...)
	if len(positional) > 0 {
		out = append(append(out, "--"), positional...)
	}
	return out, nil
}

// findCommand is the command of cmds named name (or the help command).
func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// hasSubcommands says whether c has subcommands besides the help command
// urfave/cli adds once it has run.
func hasSubcommands(c *cli.Command) bool {
	return slices.ContainsFunc(c.Subcommands, func(s *cli.Command) bool { return s.Name != "help" })
}

// takesValue says whether the command's flag name reads the next argument
// as its value. Unknown flags do not: parsing reports them.
func takesValue(c *cli.Command, name string) bool {
	for _, f := range c.Flags {
		if slices.Contains(f.Names(), name) {
			if d, ok := f.(cli.DocGenerationFlag); ok {
				return d.TakesValue()
			}
		}
	}
	return false
}

// unknownCommand is the usage error of a word that names no command.
func unknownCommand(path []string, cmds []*cli.Command, word string) error {
	var names []string
	for _, c := range cmds {
		if !c.Hidden {
			names = append(names, c.Names()...)
		}
	}
	parent := strings.Join(path, " ")
	msg := fmt.Sprintf("no command %q", word)
	if parent != "" {
		msg = fmt.Sprintf("%s has no command %q", parent, word)
	}
	if s := didyoumean.Nearest(word, names); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return usageError{command: parent, err: fmt.Errorf("%s", msg)}
}

// suggestFlag adds the nearest of flags to the Go flag package's error for
// an undefined flag.
func suggestFlag(err error, flags []cli.Flag) error {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return err
	}
	var names []string
	for _, f := range flags {
		names = append(names, f.Names()...)
	}
	s := didyoumean.Nearest(name, names)
	if s == "" {
		return err
	}
	dashes := "--"
	if len(s) == 1 {
		dashes = "-"
	}
	return fmt.Errorf("%w; did you mean %s%s?", err, dashes, s)
}

// checkChannels is the Action of --channel flags: a name that is no channel
// is a usage error naming the flag, with the nearest channel suggested.
func checkChannels(c *cli.Context, names []string) error {
	for _, n := range names {
		if _, ok := config.DefaultChannel(n); !ok {
			msg := fmt.Sprintf("--channel %s: not a channel (%s)", n, strings.Join(config.ChannelNames, ", "))
			if s := didyoumean.Nearest(n, config.ChannelNames); s != "" {
				msg += fmt.Sprintf("; did you mean %s?", s)
			}
			return usageErrorf(c, "%s", msg)
		}
	}
	return nil
}

func checkChannel(c *cli.Context, name string) error { return checkChannels(c, []string{name}) }
