package main

import (
	"github.com/urfave/cli/v2"

	"github.com/acpgen/acpgen/generator"
	"github.com/acpgen/acpgen/generator/config"
	"github.com/acpgen/acpgen/generator/scaffold"
	"github.com/acpgen/acpgen/templates"
)

const (
	acpgenModule  = generator.Module
	defaultImport = scaffold.DefaultImport
)

func scaffoldCommand() *cli.Command {
	sub := make([]*cli.Command, 0, len(templates.Kinds()))
	for _, kind := range templates.Kinds() {
		sub = append(sub, &cli.Command{
			Name:  kind,
			Usage: "write a starter ACP " + kind + " on stdio to --out",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "out", Usage: "folder to write to; it must not exist or be empty (nothing is ever overwritten)"},
				&cli.StringFlag{Name: "module", Usage: "make the starter a module of its own with this module path (default: join the module that holds --out, else a new module named after the folder)"},
				&cli.StringFlag{Name: "import", Usage: "import path of the generated ACP package to build on (default: the package the nearest " + config.FileName + " (the current folder, else above it within the module) generates, its stable channel or else its first v1 channel; the starters speak protocol v1; without one " + defaultImport + ")"},
				&cli.BoolFlag{Name: "unstable", Usage: "build on the unstable channel instead (the configuration's unstable channel; without one " + defaultImport + "/unstable); a proxy always does"},
				&cli.StringFlag{Name: "acpgen-version", Usage: "version of " + acpgenModule + " a new go.mod requires (default: this acpgen's own version, or the replacement folder it was built from; else what the module in reach uses)"},
				&cli.StringFlag{Name: "replace", Usage: "folder that a new go.mod replaces " + acpgenModule + " with (a local checkout)"},
				&cli.BoolFlag{Name: "http", Usage: "over the network instead of stdio (WebSocket and Streamable HTTP): an agent serves ACP at http://ADDR/acp, a client dials an agent's URL with a token and dials again when the connection fails"},
				&cli.BoolFlag{Name: "mcp", Usage: "agents: take MCP servers over ACP (mcp/message, the unstable channel): advertise mcpCapabilities.acp and call each server a session declares with an MCP client session of the official Go SDK; the starter then requires " + acpgenModule + "/mcp, which brings the SDK"},
				&cli.StringFlag{Name: "store", Usage: "agents: keep sessions in a session store so that session/load finds them after a restart: sqlite (a file, the default of its -store flag), postgres or memory; the starter then requires " + acpgenModule + "/store, which compiles the SQL drivers"},
			},
			Action: func(c *cli.Context) error {
				if c.NArg() > 0 {
					return usageErrorf(c, "scaffold %s takes no arguments, got %q (the folder is --out DIR)", kind, c.Args().Slice())
				}
				if c.String("out") == "" {
					return usageErrorf(c, "no folder to write to: give --out DIR")
				}
				return runScaffold(c, kind)
			},
		})
	}
	return &cli.Command{
		Name:  "scaffold",
		Usage: "write a compiling starter ACP agent, client or proxy built on a generated package",
		Description: "The starter is package main: a handler type that embeds the generated Unimplemented handler\n" +
			"and a main that serves ACP on stdin/stdout (agent) or runs an agent as a subprocess (client);\n" +
			"or a proxy on runtime/proxy (the unstable channel by default) that hides terminals from the agent\n" +
			"and counts tokens, run between an editor and an agent or as a Proxy Chains component.\n" +
			"When --out lies inside an existing Go module and --module is not given, the starter joins that\n" +
			"module (which must require " + acpgenModule + "); otherwise it gets its own go.mod, which requires\n" +
			"acpgen as this acpgen was installed (its version, or a replace directive for its folder).",
		Subcommands: sub,
	}
}

func runScaffold(c *cli.Context, kind string) error {
	st, err := scaffold.Write(scaffold.Options{
		Kind: kind, Out: c.String("out"), Module: c.String("module"),
		Import: c.String("import"), Unstable: c.Bool("unstable"),
		AcpgenVersion: c.String("acpgen-version"), Replace: c.String("replace"),
		HTTP: c.Bool("http"), Store: c.String("store"), MCP: c.Bool("mcp"), Install: ownInstall(),
	})
	if err != nil {
		return err
	}
	st.PrintNextSteps(c.App.Writer)
	return nil
}
