package testenv

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// Unprivileged makes cmd run as nobody when this process is root, and gives
// nobody the paths (recursively); otherwise it changes nothing.
func Unprivileged(cmd *exec.Cmd, paths ...string) error {
	if os.Getuid() != 0 {
		return nil
	}
	const nobody = 65534
	for _, p := range paths {
		err := filepath.Walk(p, func(path string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(path, nobody, nobody)
		})
		if err != nil {
			return err
		}
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Credential = &syscall.Credential{Uid: nobody, Gid: nobody}
	return nil
}

// Cluster is a PostgreSQL cluster in a temporary directory, listening on a
// unix socket there only, with trust authentication for the user "acpgen".
type Cluster struct {
	dir  string
	cmd  *exec.Cmd
	exit chan struct{}
	log  bytes.Buffer
}

// postgresBin returns the bin directory of the newest installed PostgreSQL.
func postgresBin() (string, error) {
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(found) == 0 {
		return "", errors.New("no /usr/lib/postgresql/*/bin/initdb (Debian's postgresql package)")
	}
	// Major versions are numbers: a longer one is newer.
	slices.SortFunc(found, func(a, b string) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return strings.Compare(a, b)
	})
	return filepath.Dir(found[len(found)-1]), nil
}

// StartPostgres starts a cluster; Stop ends it and removes its directory.
func StartPostgres() (*Cluster, error) {
	bin, err := postgresBin()
	if err != nil {
		return nil, err
	}
	// A short path: a unix socket's path has about 100 bytes.
	dir, err := os.MkdirTemp("", "acpgen-pg-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir, exit: make(chan struct{})}
	fail := func(err error) (*Cluster, error) {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return fail(err)
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "acpgen", "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-instructions")
	initdb.Env = append(os.Environ(), "LC_ALL=C")
	if err := Unprivileged(initdb, dir); err != nil {
		return fail(err)
	}
	if out, err := initdb.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("initdb: %v\n%s", err, out))
	}
	c.cmd = exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-k", dir, "-c", "listen_addresses=", "-c", "max_connections=200")
	c.cmd.Stdout, c.cmd.Stderr = &c.log, &c.log
	if err := Unprivileged(c.cmd, dir); err != nil {
		return fail(err)
	}
	// The cluster dies with this process, however it ends.
	c.cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	if err := c.cmd.Start(); err != nil {
		return fail(fmt.Errorf("postgres: %v", err))
	}
	go func() { c.cmd.Wait(); close(c.exit) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		db, err := sql.Open("pgx", c.URL("postgres"))
		if err == nil {
			err = db.Ping()
			db.Close()
		}
		if err == nil {
			return c, nil
		}
		select {
		case <-c.exit:
			return fail(fmt.Errorf("postgres exited: %s", c.log.String()))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			c.Stop()
			return nil, fmt.Errorf("postgres did not accept connections in 60 s: %v\n%s", err, c.log.String())
		}
	}
}

// URL is the connection URL of database db.
func (c *Cluster) URL(db string) string {
	q := url.Values{"host": {c.dir}, "sslmode": {"disable"}}
	return "postgres://acpgen@/" + db + "?" + q.Encode()
}

// NewDatabase creates an empty database and returns its URL.
func (c *Cluster) NewDatabase(ctx context.Context, name string) (string, error) {
	db, err := sql.Open("pgx", c.URL("postgres"))
	if err != nil {
		return "", err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `CREATE DATABASE "`+name+`"`); err != nil {
		return "", err
	}
	return c.URL(name), nil
}

// Stop shuts the cluster down (fast shutdown, then a kill after 10 s) and
// removes its directory.
func (c *Cluster) Stop() {
	c.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-c.exit:
	case <-time.After(10 * time.Second):
		c.cmd.Process.Kill()
		<-c.exit
	}
	os.RemoveAll(c.dir)
}
