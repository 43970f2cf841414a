package main

import (
	"errors"

	"github.com/urfave/cli/v2"
)

func overlayCommand() *cli.Command {
	return &cli.Command{
		Name:  "overlay",
		Usage: "inspect RFD and vendor overlays",
		Subcommands: []*cli.Command{{
			Name:  "status",
			Usage: "print, per overlay and change, whether it is added, already upstream or in conflict",
			Action: func(c *cli.Context) error {
				return errors.New("overlay status is not implemented yet")
			},
		}},
	}
}
