package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/acpgen/acpgen/store"
	"github.com/acpgen/acpgen/store/internal/testenv"
)

// A read-only folder or a full disk at start, for a new and for an
// existing SQLite file: the agent logs one line naming the store, serves
// from memory, and advertises none of the store's capabilities.
func TestUnwritableStoreAtStartWithdrawsCapabilities(t *testing.T) {
	// The agent runs unprivileged for the read-only folder (root writes
	// anywhere), so it needs a copy nobody may run.
	pub, err := os.MkdirTemp("", "storeagent-ro-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(pub, 0o755); os.RemoveAll(pub) })
	bin := filepath.Join(pub, "agent")
	copyFile(t, agentBinary(t), bin, 0o755)
	existing := filepath.Join(pub, "existing.db")
	st, err := store.Open(t.Context(), "sqlite:"+existing, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if err := os.Chmod(pub, 0o555); err != nil {
		t.Fatal(err)
	}
	for _, db := range []string{filepath.Join(pub, "fresh.db"), existing} {
		t.Run("read-only folder/"+filepath.Base(db), func(t *testing.T) {
			cmd := exec.Command(bin, "-store", "sqlite:"+db)
			cmd.Dir = "/"
			if err := testenv.Unprivileged(cmd); err != nil {
				t.Fatal(err)
			}
			servesWithoutStore(t, cmd, db)
		})
		// A file size limit of zero fails writes as a full disk does (Go
		// ignores SIGXFSZ, so a write returns EFBIG); the pipes the agent
		// speaks on are not files.
		t.Run("full disk/"+filepath.Base(db), func(t *testing.T) {
			cmd := exec.Command("sh", "-c", `ulimit -f 0 && exec "$0" "$@"`, bin, "-store", "sqlite:"+db)
			servesWithoutStore(t, cmd, db)
		})
	}
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
