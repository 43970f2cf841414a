package store

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/acpgen/acpgen/runtime/session"
	"github.com/acpgen/acpgen/runtime/session/sessiontest"
)

func openSQLite(t testing.TB, path string) *Store {
	t.Helper()
	st, err := OpenSQLite(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestSQLite(t *testing.T) {
	sessiontest.Run(t, func(t *testing.T) session.Store {
		return openSQLite(t, filepath.Join(t.TempDir(), "sessions.db"))
	})
}
