package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/acpgen/acpgen/generator/config"
	"github.com/acpgen/acpgen/generator/release"
	"github.com/acpgen/acpgen/generator/source"
	"github.com/urfave/cli/v2"
)

func releaseCommand() *cli.Command {
	return &cli.Command{
		Name:  "release",
		Usage: "move the pinned schema to another upstream release: compare, pin, regenerate, propose the next module version and write its CHANGELOG entry",
		Description: "Fetches --to into the schema cache and compares it with the release the lock pins: the schema\n" +
			"changes of each configured channel (as `schema diff`) and the Go API of each configured package\n" +
			"(as `apidiff`, so run it inside the module). The next module version is proposed from the\n" +
			"highest vMAJOR.MINOR.PATCH tag of the git repository holding the configuration (none: v0.0.0;\n" +
			"pre-release tags do not count): a patch verdict proposes the next patch, a minor one the next\n" +
			"minor; a major one the next minor before v1, and from v1 on the next major, which needs a new\n" +
			"module path (/vN) and --allow-major. Then the lock and schema.version are pinned to the new\n" +
			"release, the packages regenerated as `generate` does, and an entry prepended to the changelog.\n" +
			"Everything is compared before anything is written: a refused release writes nothing.\n" +
			"Exit status: 0 released, or nothing to release; 1 error; 2 usage; 3 a major release from v1 on without --allow-major.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "to", Usage: "`VERSION` (or dist-tag) of " + source.Package + " to move to"},
			configFlag(),
			cacheFlag(),
			&cli.BoolFlag{Name: "allow-major", Usage: "release a new major version (v2 and up: a new module path) when the Go API breaks"},
			&cli.StringFlag{Name: "changelog", Usage: "`FILE` to prepend the changelog entry to (default: " + release.ChangelogName + " beside the configuration)"},
			&cli.StringFlag{Name: "npm", Value: "npm", Usage: "npm client to run"},
		},
		Action: runRelease,
	}
}

func runRelease(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf(c, "release takes no arguments, got %q (the target is --to VERSION)", c.Args().Slice())
	}
	if c.String("to") == "" {
		return usageErrorf(c, "no target release: give --to VERSION")
	}
	ctx, w, stderr := c.Context, c.App.Writer, c.App.ErrWriter
	r, err := config.Open(c.String("config"), config.Overrides{Cache: c.String("cache-dir")})
	if err != nil {
		return err
	}
	o := r.Fetch(stderr)
	o.Npm = c.String("npm")

	// Compare before writing anything.
	pl, err := release.NewPlan(ctx, r, o, c.String("to"))
	if errors.Is(err, release.ErrNothingToRelease) {
		fmt.Fprintf(w, "%v (`%s generate` regenerates)\n", err, invocation())
		return nil
	}
	if err != nil {
		return err
	}
	pl.Print(w)
	if pl.Proposal.Major && !c.Bool("allow-major") {
		return verdictError{pl.MajorRefusal()}
	}
	clPath := c.String("changelog")
	if clPath == "" {
		clPath = filepath.Join(pl.Repo, release.ChangelogName)
	}
	applied, err := pl.Apply(ctx, r, c.String("config"), clPath, stderr)
	if err != nil {
		return err
	}
	pl.PrintWritten(w, r, applied)
	pl.PrintNext(w, r, invocation())
	return nil
}
