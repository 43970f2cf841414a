package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/acpgen/acpgen/runtime/session"
	"github.com/acpgen/acpgen/runtime/session/sessiontest"
)

var ctx = context.Background()

// What a store holds is there when it is opened again: sessions, logs, turn
// state, closed flags.
func TestSQLiteReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions.db")
	st := openSQLite(t, path)
	if _, err := st.Create(ctx, session.Info{ID: "a", Owner: "o", Cwd: "/w", AdditionalDirectories: []string{"/x"}, Title: "T"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Create(ctx, session.Info{ID: "b", Owner: "o", Cwd: "/w"}); err != nil {
		t.Fatal(err)
	}
	st.StartTurn(ctx, "a", nil)
	for i := range 10 {
		if _, err := st.Append(ctx, "a", session.Event{Kind: session.KindUpdate, Data: sessiontest.Update(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.CloseSession(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	st.Close()

	st = openSQLite(t, path)
	a, err := st.Get(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if a.Title != "T" || a.LastSeq != 11 || a.Turn.State != session.TurnRunning || a.AdditionalDirectories[0] != "/x" {
		t.Errorf("after reopening: %+v", a)
	}
	evs, err := st.Events(ctx, "a", 1, 0)
	if err != nil || len(evs) != 10 || string(evs[9].Data) != string(sessiontest.Update(9)) {
		t.Errorf("after reopening, the log: %v, %v", evs, err)
	}
	if b, err := st.Get(ctx, "b"); err != nil || !b.Closed {
		t.Errorf("after reopening, the closed session: %+v, %v", b, err)
	}
	page, err := st.List(ctx, session.Query{Owner: "o"})
	if err != nil || len(page.Sessions) != 2 || page.Sessions[0].ID != "b" {
		t.Errorf("after reopening, the list: %+v, %v", page, err)
	}
}

// setVersion writes a schema version into the database behind spec.
func setVersion(t *testing.T, driver, dsn string, v int) {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE acp_schema SET version = $1`, v); err != nil {
		t.Fatal(err)
	}
}

func testSchemaTooNew(t *testing.T, spec, driver, dsn string) {
	st, err := Open(ctx, spec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	setVersion(t, driver, dsn, SchemaVersion+1)
	_, err = Open(ctx, spec, Options{})
	if !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("opening a newer schema: %v, want ErrSchemaTooNew", err)
	}
	if want := fmt.Sprintf("version %d, this program knows versions up to %d", SchemaVersion+1, SchemaVersion); !strings.Contains(err.Error(), want) {
		t.Errorf("the error %q does not say %q", err, want)
	}
	// The refused open left the version as it was.
	db, _ := sql.Open(driver, dsn)
	defer db.Close()
	var v int
	if err := db.QueryRow(`SELECT version FROM acp_schema`).Scan(&v); err != nil || v != SchemaVersion+1 {
		t.Errorf("after the refused open the version is %d (%v)", v, err)
	}
	setVersion(t, driver, dsn, SchemaVersion)
	st, err = Open(ctx, spec, Options{})
	if err != nil {
		t.Fatalf("opening at this version again: %v", err)
	}
	st.Close()
}

func TestSchemaTooNewSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	testSchemaTooNew(t, "sqlite:"+path, "sqlite", path)
}

func TestSchemaTooNewPostgres(t *testing.T) {
	url := postgresURL(t)
	testSchemaTooNew(t, url, "pgx", url)
}

// Agents of a fleet that start at once on a new database migrate it once:
// every open succeeds.
func TestConcurrentOpensPostgres(t *testing.T) {
	url := postgresURL(t)
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for range 6 {
		wg.Go(func() {
			st, err := OpenPostgres(ctx, url, Options{})
			if err == nil {
				_, err = st.Create(ctx, session.Info{ID: sessiontest.NewID("s")})
				st.Close()
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// Two stores on one PostgreSQL database (two agents of a fleet) see each
// other's writes, and a session's sequence stays one log.
func TestSharedPostgres(t *testing.T) {
	url := postgresURL(t)
	a, b := openPostgres(t, url), openPostgres(t, url)
	if _, err := a.Create(ctx, session.Info{ID: "shared", Owner: "p"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.StartTurn(ctx, "shared", nil); err != nil {
		t.Fatal(err)
	}
	// b finds the turn a left running and interrupts it; a cannot end it.
	if _, err := b.InterruptTurn(ctx, "shared", "instance gone"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.EndTurn(ctx, "shared", "end_turn"); !errors.Is(err, session.ErrNoTurn) {
		t.Errorf("ending a turn another instance interrupted: %v, want ErrNoTurn", err)
	}
	seq, err := b.Append(ctx, "shared", session.Event{Kind: session.KindUpdate, Data: sessiontest.Update(1)})
	if err != nil || seq != 3 {
		t.Errorf("b's append: %d, %v; want 3", seq, err)
	}
	evs, err := a.Events(ctx, "shared", 0, 0)
	if err != nil || len(evs) != 3 || evs[1].Kind != session.KindTurnInterrupted {
		t.Errorf("a reads %v, %v", evs, err)
	}
}

func TestOpenSpec(t *testing.T) {
	st, err := Open(ctx, "memory", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st.(*session.Memory); !ok {
		t.Errorf("memory opened a %T", st)
	}
	path := filepath.Join(t.TempDir(), "x.db")
	st, err = Open(ctx, "sqlite:"+path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := st.(*Store); !ok || s.name != "sqlite:"+path {
		t.Errorf("sqlite: opened %T", st)
	}
	st.Close()
	for spec, want := range map[string]string{
		"":          "want memory, sqlite:FILE or postgres://",
		"mysql://x": "want memory, sqlite:FILE or postgres://",
		"/tmp/x.db": "want memory, sqlite:FILE or postgres://",
		"sqlite:":   "no file after sqlite:",
	} {
		if _, err := Open(ctx, spec, Options{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Open(%q): %v, want an error saying %q", spec, err, want)
		}
	}
}

// A store refuses writes once closed, and Close waits for the writes
// submitted before it.
func TestCloseStore(t *testing.T) {
	st := openSQLite(t, filepath.Join(t.TempDir(), "c.db"))
	if _, err := st.Create(ctx, session.Info{ID: "s"}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			_, err := st.Append(ctx, "s", session.Event{Kind: session.KindUpdate, Data: sessiontest.Update(i)})
			if err != nil && !errors.Is(err, errStoreClosed) {
				t.Error(err)
			}
		})
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if _, err := st.Append(ctx, "s", session.Event{Kind: session.KindUpdate, Data: sessiontest.Update(0)}); !errors.Is(err, errStoreClosed) {
		t.Errorf("Append after Close: %v", err)
	}
	if _, err := st.Get(ctx, "s"); !errors.Is(err, errStoreClosed) {
		t.Errorf("Get after Close: %v", err)
	}
}
