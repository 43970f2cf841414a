package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/acpgen/acpgen/store/internal/testenv"
)

// shared is what the package's tests build and start once: the agent
// binary and, for the fleet tests, one throwaway PostgreSQL cluster (each
// test makes databases of its own in it). TestMain removes both.
var shared struct {
	dir string

	binOnce sync.Once
	bin     string
	binErr  error

	pgOnce sync.Once
	pg     *testenv.Cluster
	pgErr  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.pg != nil {
		shared.pg.Stop()
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// agentBinary returns the agent built from this package.
func agentBinary(t *testing.T) string {
	t.Helper()
	shared.binOnce.Do(func() {
		if shared.dir, shared.binErr = os.MkdirTemp("", "storeagent-test-"); shared.binErr != nil {
			return
		}
		shared.bin = filepath.Join(shared.dir, "agent")
		if out, err := exec.Command("go", "build", "-o", shared.bin, ".").CombinedOutput(); err != nil {
			shared.binErr = &buildError{err, out}
		}
	})
	if shared.binErr != nil {
		t.Fatalf("go build: %v", shared.binErr)
	}
	return shared.bin
}

type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + string(e.out) }

// postgres returns the package's PostgreSQL cluster, started on first use;
// a missing engine skips the test (fails it under CI=true).
func postgres(t *testing.T) *testenv.Cluster {
	t.Helper()
	shared.pgOnce.Do(func() { shared.pg, shared.pgErr = testenv.StartPostgres() })
	if shared.pgErr != nil {
		testenv.Missing(t, "PostgreSQL", shared.pgErr)
	}
	return shared.pg
}

// databases counts the databases the tests made, so that each run of a test
// (go test -count=N) makes one of its own in the shared cluster.
var databases atomic.Int64

// database creates a database named for the test's case in the package's
// cluster and returns its URL.
func database(t *testing.T, ctx context.Context, name string) string {
	t.Helper()
	url, err := postgres(t).NewDatabase(ctx, fmt.Sprintf("%s_%d", strings.ToLower(strings.ReplaceAll(name, "-", "_")), databases.Add(1)))
	if err != nil {
		t.Fatal(err)
	}
	return url
}
