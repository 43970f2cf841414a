package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"sync"
	"testing"

	"github.com/acpgen/acpgen/runtime/session"
	"github.com/acpgen/acpgen/runtime/session/sessiontest"
	"github.com/acpgen/acpgen/store/internal/testenv"
)

func TestMain(m *testing.M) {
	if child := os.Getenv(childEnv); child != "" {
		runChild(child)
		return
	}
	code := m.Run()
	if pg.cluster != nil {
		pg.cluster.Stop()
	}
	os.Exit(code)
}

// pg is the cluster the package's tests and benchmarks share, started by the
// first that needs it.
var pg struct {
	once    sync.Once
	cluster *testenv.Cluster
	err     error
}

// postgresURL returns the URL of a new, empty database.
func postgresURL(t testing.TB) string {
	t.Helper()
	pg.once.Do(func() { pg.cluster, pg.err = testenv.StartPostgres() })
	if pg.err != nil {
		testenv.Missing(t, "PostgreSQL", pg.err)
	}
	var b [6]byte
	rand.Read(b[:])
	url, err := pg.cluster.NewDatabase(context.Background(), "t_"+hex.EncodeToString(b[:]))
	if err != nil {
		t.Fatal(err)
	}
	return url
}

func openPostgres(t testing.TB, url string) *Store {
	t.Helper()
	st, err := OpenPostgres(context.Background(), url, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestPostgres(t *testing.T) {
	url := postgresURL(t)
	sessiontest.Run(t, func(t *testing.T) session.Store { return openPostgres(t, url) })
}
