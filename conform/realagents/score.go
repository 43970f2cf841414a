//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/acpgen/acpgen/internal/procgroup"
	"golang.org/x/mod/semver"
)

// installTimeout bounds one npm install: a package that takes longer is
// recorded as not run.
const installTimeout = 10 * time.Minute

// runTimeout bounds one conform run beyond its per-case timeouts.
const runTimeout = 30 * time.Minute

// scorer installs and checks the agents, one at a time: a slow agent's
// start-up must not be judged on a machine the others load.
type scorer struct {
	root, tmp string
	timeout   time.Duration
	acpgen    string // the checker, built from this module
	cache     string // acpgen's schema cache, kept across the clean HOME
	path      string // PATH for the checker and the agents: node and the system only
	node      string
}

// prepare builds acpgen and finds node and the schema cache.
func (s *scorer) prepare(ctx context.Context) error {
	s.acpgen = filepath.Join(s.tmp, "acpgen")
	if out, err := command(ctx, s.root, nil, "go", "build", "-o", s.acpgen, "./cmd/acpgen"); err != nil {
		return fmt.Errorf("go build ./cmd/acpgen: %w\n%s", err, out)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return fmt.Errorf("the agents need node: %w", err)
	}
	out, err := command(ctx, "", nil, node, "--version")
	if err != nil {
		return err
	}
	s.node = strings.TrimSpace(string(out))
	s.path = filepath.Dir(node) + ":/usr/local/bin:/usr/bin:/bin"
	s.cache = os.Getenv("ACPGEN_CACHE")
	if s.cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return err
		}
		s.cache = filepath.Join(dir, "acpgen")
	}
	return nil
}

// score installs a and checks it on the stable channel, and on v2 when it
// answers an initialize for 65535 with version 2.
func (s *scorer) score(ctx context.Context, a agent) []Run {
	run := Run{Agent: a.Name, Package: a.Package, Requested: a.Version, Channel: "stable",
		Command: append([]string{"node_modules/.bin/" + a.Bin}, a.Args...)}
	fmt.Fprintf(os.Stderr, "realagents: installing %s@%s\n", a.Package, a.Version)
	prefix, version, err := s.install(ctx, a)
	if err != nil {
		run.Verdict, run.NotRun = "not run", err.Error()
		return []Run{run}
	}
	run.Version = version
	argv := append([]string{filepath.Join(prefix, "node_modules", ".bin", a.Bin)}, a.Args...)
	runs := []Run{s.check(ctx, run, argv)}
	if negotiatesV2(runs[0]) {
		v2 := run
		v2.Channel = "v2"
		runs = append(runs, s.check(ctx, v2, argv))
	}
	return runs
}

// negotiatesV2 reports whether the run's agent answered the initialize for
// the unsupported version 65535 with version 2.
func negotiatesV2(r Run) bool { return r.Negotiated == 2 }

// check runs conform on argv in a fresh folder with a fresh HOME and no
// other environment: no credential reaches the agent.
func (s *scorer) check(ctx context.Context, run Run, argv []string) Run {
	fmt.Fprintf(os.Stderr, "realagents: checking %s %s on %s\n", run.Agent, run.Version, run.Channel)
	dir, err := os.MkdirTemp(s.tmp, "run-")
	if err == nil {
		err = os.Mkdir(filepath.Join(dir, "home"), 0o755)
	}
	if err == nil {
		err = os.Mkdir(filepath.Join(dir, "work"), 0o755)
	}
	if err != nil {
		run.Verdict, run.NotRun = "not run", err.Error()
		return run
	}
	env := []string{"PATH=" + s.path, "HOME=" + filepath.Join(dir, "home"), "ACPGEN_CACHE=" + s.cache, "TMPDIR=" + dir}
	args := []string{"conform", "agent", "--json", "--timeout", s.timeout.String()}
	if run.Channel != "stable" {
		args = append(args, "--channel", run.Channel)
	}
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	out, err := command(ctx, filepath.Join(dir, "work"), env, s.acpgen, append(append(args, "--"), argv...)...)
	var exit *exec.ExitError
	switch {
	case err != nil && !errors.As(err, &exit):
		run.Verdict, run.NotRun = "not run", err.Error()
	default:
		code := 0
		if exit != nil {
			code = exit.ExitCode()
		}
		if ferr := run.fill(code, out); ferr != nil {
			run.Verdict, run.NotRun = "not run", fmt.Sprintf("exit status %d: %v", code, ferr)
		}
	}
	return run
}

// install puts a's package into a prefix of its own: the version asked for,
// else the nearest one the registry has. It returns the prefix and the
// installed version.
func (s *scorer) install(ctx context.Context, a agent) (prefix, version string, err error) {
	prefix = filepath.Join(s.tmp, strings.NewReplacer("/", "_", "@", "").Replace(a.Package))
	version = a.Version
	if err = s.npmInstall(ctx, prefix, a.Package+"@"+version); err != nil {
		near, nerr := nearest(ctx, a.Package, a.Version)
		if nerr != nil || near == a.Version {
			return "", "", err
		}
		if err = s.npmInstall(ctx, prefix, a.Package+"@"+near); err != nil {
			return "", "", err
		}
	}
	b, err := os.ReadFile(filepath.Join(prefix, "node_modules", a.Package, "package.json"))
	if err != nil {
		return "", "", err
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		return "", "", fmt.Errorf("%s package.json: %w", a.Package, err)
	}
	return prefix, pkg.Version, nil
}

func (s *scorer) npmInstall(ctx context.Context, prefix, spec string) error {
	ctx, cancel := context.WithTimeout(ctx, installTimeout)
	defer cancel()
	_, err := command(ctx, "", nil, "npm", "install", "--prefix", prefix, "--no-audit", "--no-fund", "--loglevel=error", spec)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("npm install %s: not done within %s", spec, installTimeout)
		}
		return fmt.Errorf("npm install %s: %w", spec, err)
	}
	return nil
}

// nearest is the registry's version of pkg closest to want: the newest not
// above it, else the oldest above it.
func nearest(ctx context.Context, pkg, want string) (string, error) {
	out, err := command(ctx, "", nil, "npm", "view", pkg, "versions", "--json")
	if err != nil {
		return "", err
	}
	var versions []string
	if err := json.Unmarshal(out, &versions); err != nil {
		return "", err
	}
	var below, above string
	for _, v := range versions {
		switch c := semver.Compare("v"+v, "v"+want); {
		case c <= 0 && (below == "" || semver.Compare("v"+v, "v"+below) > 0):
			below = v
		case c > 0 && (above == "" || semver.Compare("v"+v, "v"+above) < 0):
			above = v
		}
	}
	if below == "" {
		below = above
	}
	if below == "" {
		return "", fmt.Errorf("%s: no versions", pkg)
	}
	return below, nil
}

// command runs name in dir (with env when set) in a process group of its
// own, killed whole when ctx ends, and returns its stdout (its stderr
// inline in the error).
func command(ctx context.Context, dir string, env []string, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	procgroup.Set(cmd)
	cmd.Cancel = func() error { return procgroup.Kill(cmd) }
	cmd.WaitDelay = 10 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil && stderr.Len() > 0 {
		err = fmt.Errorf("%w: %s", err, lastLine(stderr.Bytes()))
	}
	return out, err
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}
