package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
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
