package store

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpgen/acpgen/runtime/session"
	"github.com/acpgen/acpgen/store/internal/testenv"
)

type ack struct {
	id   string
	seq  uint64
	kind session.Kind
}

// killedChild runs an appending child on spec, kills it with SIGKILL once
// it has acknowledged n writes (or after delay when n < 0), and returns every
// write it acknowledged.
func killedChild(t *testing.T, spec string, n int, delay time.Duration) []ack {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=append "+spec)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var acks []ack
	sc := bufio.NewScanner(out)
	read := func() bool {
		if !sc.Scan() {
			return false
		}
		var a ack
		if _, err := fmt.Sscanf(sc.Text(), "%s %d %d", &a.id, &a.seq, &a.kind); err != nil {
			t.Fatalf("child printed %q: %v", sc.Text(), err)
		}
		acks = append(acks, a)
		return true
	}
	if n < 0 {
		time.Sleep(delay)
	}
	for len(acks) < n && read() {
	}
	cmd.Process.Kill()
	// What the child printed before it died was acknowledged too.
	for read() {
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the child ended with %v before it was killed: %s", err, stderr.String())
	}
	return acks
}

// checkAcked opens the store and checks that every acknowledged write is
// there, that each touched session's log is whole (sequences 1..LastSeq, turn
// state as its marks say), and that a turn the kill cut short can be
// interrupted.
func checkAcked(t *testing.T, spec string, acks []ack) {
	t.Helper()
	ctx := context.Background()
	st, err := Open(ctx, spec, Options{})
	if err != nil {
		t.Fatalf("the store does not open after SIGKILL: %v", err)
	}
	defer st.Close()
	logs := map[string][]session.Event{}
	for _, a := range acks {
		evs, ok := logs[a.id]
		if !ok {
			s, err := st.Get(ctx, a.id)
			if err != nil {
				t.Fatalf("session %s, whose creation was acknowledged: %v", a.id, err)
			}
			if evs, err = st.Events(ctx, a.id, 0, 0); err != nil {
				t.Fatal(err)
			}
			checkLog(t, s, evs)
			if s.Turn.State == session.TurnRunning {
				if _, err := st.InterruptTurn(ctx, a.id, "killed"); err != nil {
					t.Errorf("interrupting %s's cut turn: %v", a.id, err)
				}
			}
			logs[a.id] = evs
		}
		if a.seq == 0 {
			continue
		}
		if a.seq > uint64(len(evs)) {
			t.Fatalf("%s: acknowledged event %d is missing (the log has %d)", a.id, a.seq, len(evs))
		}
		e := evs[a.seq-1]
		want := map[session.Kind]string{
			session.KindUpdate:    string(ackData(a.id, a.seq)),
			session.KindTurnStart: fmt.Sprint(a.seq),
			session.KindTurnEnd:   `"end_turn"`,
		}[a.kind]
		if e.Kind != a.kind || string(e.Data) != want {
			t.Fatalf("%s: event %d is %s %s, acknowledged as %s %s", a.id, a.seq, e.Kind, e.Data, a.kind, want)
		}
	}
}

func checkLog(t *testing.T, s session.Session, evs []session.Event) {
	t.Helper()
	if uint64(len(evs)) != s.LastSeq {
		t.Fatalf("%s: %d events, last sequence %d", s.ID, len(evs), s.LastSeq)
	}
	state, start := session.TurnNone, uint64(0)
	for i, e := range evs {
		if e.Seq != uint64(i+1) || !json.Valid(e.Data) {
			t.Fatalf("%s: event %d is %d %s %q", s.ID, i, e.Seq, e.Kind, e.Data)
		}
		switch e.Kind {
		case session.KindTurnStart:
			state, start = session.TurnRunning, e.Seq
		case session.KindTurnEnd:
			state = session.TurnEnded
		case session.KindTurnInterrupted:
			state = session.TurnInterrupted
		}
	}
	if s.Turn.State != state || s.Turn.Start != start {
		t.Fatalf("%s: turn %+v, its marks say %s from %d", s.ID, s.Turn, state, start)
	}
}

// SIGKILL while four writers append (one to four updates an Append): 100
// times the store opens and holds every write that returned. The first ten kills land on a new database
// within 30 ms of the start, so some cut the migration.
func TestSIGKILLDuringWritesSQLite(t *testing.T) {
	dir := t.TempDir()
	shared := "sqlite:" + filepath.Join(dir, "sessions.db")
	total := 0
	for i := range 100 {
		spec, n := shared, rand.IntN(300)
		if i < 10 {
			spec, n = fmt.Sprintf("sqlite:%s/fresh%d.db", dir, i), -1
		}
		acks := killedChild(t, spec, n, time.Duration(rand.IntN(30))*time.Millisecond)
		checkAcked(t, spec, acks)
		total += len(acks)
	}
	if total < 1000 {
		t.Errorf("only %d writes were acknowledged over 100 kills: the kills did not land during writes", total)
	}
}

// The same against PostgreSQL, whose server outlives the killed client: a
// transaction the kill cut is rolled back, and the next opener's migration
// waits for no one.
func TestSIGKILLDuringWritesPostgres(t *testing.T) {
	spec := postgresURL(t)
	total := 0
	for i := range 20 {
		n := rand.IntN(100)
		if i < 3 {
			n = -1
		}
		acks := killedChild(t, spec, n, time.Duration(rand.IntN(30))*time.Millisecond)
		clientsGone(t, spec)
		checkAcked(t, spec, acks)
		total += len(acks)
	}
	if total < 200 {
		t.Errorf("only %d writes were acknowledged over 20 kills", total)
	}
}

// clientsGone waits until no other client is connected to the database at
// url. The server outlives a killed client: the client's backend still runs
// the statement it last received (a COMMIT, an Append's one statement)
// before it finds the connection gone, so what the database holds is
// settled only once that backend has exited.
func clientsGone(t *testing.T, url string) {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // pg_backend_pid() is the connection asking
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		err := db.QueryRow(`SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connections to the database 30 s after its client was killed", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// childBinary returns a copy of the test binary that an unprivileged user
// can run (go test's own is in a directory only its owner may read).
func childBinary(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if os.Getuid() != 0 {
		return self
	}
	dir, err := os.MkdirTemp("", "acpgen-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	bin := filepath.Join(dir, "store.test")
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return bin
}

// openInChild opens spec in a child (unprivileged when asked, and with a
// file size limit when limit >= 0) and returns what it printed.
func openInChild(t *testing.T, bin, spec string, unprivileged bool, limit int) string {
	t.Helper()
	arg := "open " + spec
	if limit >= 0 {
		arg += fmt.Sprint(" ", limit)
	}
	cmd := exec.Command(bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+arg)
	if unprivileged {
		if err := testenv.Unprivileged(cmd); err != nil {
			t.Fatal(err)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// newDatabase creates a store at path holding one session, and closes it.
func newDatabase(t *testing.T, path string) {
	t.Helper()
	st := openSQLite(t, path)
	if _, err := st.Create(context.Background(), session.Info{ID: "kept", Cwd: "/"}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}

// wantOpenError checks that the child's open failed naming the store, and
// that the database file (when there was one) is as it was.
func wantOpenError(t *testing.T, out, path string, before []byte) {
	t.Helper()
	if prefix := "error: open session store sqlite:" + path + ": "; !strings.HasPrefix(out, prefix) {
		t.Errorf("opening %s printed %q, want an error starting %q", path, out, prefix)
	}
	if before != nil {
		after, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(before, after) {
			t.Errorf("the refused open changed the database file (%v)", err)
		}
	}
}

// A store in a directory the agent may not write fails to open with an
// error naming it, whether the file is new or exists: the caller then
// withdraws the capabilities a store backs.
func TestOpenReadOnlyDirectory(t *testing.T) {
	bin := childBinary(t)
	dir, err := os.MkdirTemp("", "acpgen-ro-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755); os.RemoveAll(dir) })
	existing := filepath.Join(dir, "existing.db")
	newDatabase(t, existing)
	before, err := os.ReadFile(existing)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(dir, "fresh.db")
	wantOpenError(t, openInChild(t, bin, "sqlite:"+fresh, true, -1), fresh, nil)
	wantOpenError(t, openInChild(t, bin, "sqlite:"+existing, true, -1), existing, before)
	// The same child opens a store where it may write.
	writable := t.TempDir()
	os.Chmod(writable, 0o777)
	os.Chmod(filepath.Dir(writable), 0o755)
	if out := openInChild(t, bin, "sqlite:"+filepath.Join(writable, "ok.db"), true, -1); out != "opened" {
		t.Errorf("opening a store in a writable directory printed %q", out)
	}
}

// A full disk at open (here, a file size limit of one byte: writes fail as
// they do on a full disk) fails the open with an error naming the store.
func TestOpenFullDisk(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "existing.db")
	newDatabase(t, existing)
	before, err := os.ReadFile(existing)
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(dir, "fresh.db")
	wantOpenError(t, openInChild(t, self, "sqlite:"+fresh, false, 1), fresh, nil)
	wantOpenError(t, openInChild(t, self, "sqlite:"+existing, false, 1), existing, before)
	if out := openInChild(t, self, "sqlite:"+existing, false, -1); out != "opened" {
		t.Errorf("without the limit, opening printed %q", out)
	}
}
