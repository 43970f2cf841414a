//go:build !linux

package testenv

import (
	"context"
	"errors"
	"os/exec"
)

var errLinux = errors.New("the PostgreSQL tests and unprivileged commands run on Linux")

// Unprivileged fails: only the Linux tests run commands as another user.
func Unprivileged(cmd *exec.Cmd, paths ...string) error { return errLinux }

// Cluster is a PostgreSQL cluster (Linux only).
type Cluster struct{}

// StartPostgres fails off Linux.
func StartPostgres() (*Cluster, error) { return nil, errLinux }

func (c *Cluster) URL(db string) string { return "" }

func (c *Cluster) NewDatabase(ctx context.Context, name string) (string, error) {
	return "", errLinux
}

func (c *Cluster) Stop() {}
