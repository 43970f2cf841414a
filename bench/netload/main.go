//go:build linux

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/acpgen/acpgen/gen/acp"
	"github.com/acpgen/acpgen/runtime/acphttp"
)

type config struct {
	ws, http         int
	sessions         int
	updates          int
	interval         time.Duration
	floodConns       int
	floodUpdates     int
	rounds           int
	retain           []string
	profile          string
	settle           time.Duration
	dialConcurrency  int
	maxConnections   int
	retainMessagesOn int
}

func main() {
	serve := flag.Bool("serve", false, "internal: run the server")
	stdioAgent := flag.Bool("stdio-agent", false, "internal: run the agent on stdin and stdout")
	retainMessages := flag.Int("retain-messages", 0, "internal: the server's Options.RetainMessages")
	var c config
	flag.IntVar(&c.ws, "ws", 1000, "idle WebSocket connections")
	flag.IntVar(&c.http, "http", 200, "idle Streamable HTTP connections")
	flag.IntVar(&c.sessions, "sessions", 1000, "sessions streaming at once, per profile")
	flag.IntVar(&c.updates, "updates", 50, "updates per streaming session")
	flag.DurationVar(&c.interval, "interval", 200*time.Millisecond, "time between a streaming session's updates")
	flag.IntVar(&c.floodConns, "flood-conns", 8, "connections (and stdio agents) flooding updates, per profile")
	flag.IntVar(&c.floodUpdates, "flood-updates", 20000, "updates per flooding connection")
	flag.IntVar(&c.rounds, "rounds", 3, "flood rounds (stdio, WebSocket, Streamable HTTP in turn); the ratios are of the medians")
	retain := flag.String("retain", "off,on", "resumable log settings to run: off (RetainMessages -1), on (the default)")
	flag.StringVar(&c.profile, "profile", "", "directory for the server's heap and goroutine profiles at the idle point")
	flag.DurationVar(&c.settle, "settle", 3*time.Second, "wait before measuring idle connections")
	flag.IntVar(&c.dialConcurrency, "dial-concurrency", 64, "connections opened at once")
	flag.IntVar(&c.maxConnections, "max-connections", 0, "the server's Options.MaxConnections (0: enough for -ws and -http)")
	flag.Parse()
	c.retain = strings.Split(*retain, ",")
	if c.maxConnections == 0 {
		c.maxConnections = c.ws + c.http + 2*c.floodConns + 64
	}
	switch {
	case *serve:
		runServer(c.maxConnections, *retainMessages)
	case *stdioAgent:
		runStdioAgent()
	default:
		if err := drive(c); err != nil {
			fatal(err)
		}
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "netload:", err)
	os.Exit(1)
}

// raiseFDLimit makes room for n descriptors: the soft limit up to the hard
// one, and the hard one too when the process may (up to fs.nr_open).
func raiseFDLimit(n uint64) uint64 {
	var lim syscall.Rlimit
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	if lim.Cur >= n {
		return lim.Cur
	}
	want := lim
	want.Cur = n
	if want.Max < n {
		want.Max = n
	}
	if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want) != nil {
		want.Cur = lim.Max
		want.Max = lim.Max
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want)
	}
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	return lim.Cur
}

func runServer(maxConnections, retainMessages int) {
	raiseFDLimit(uint64(4*maxConnections + 4096))
	serveControl()
	srv := acphttp.NewServer(func(ctx context.Context, c *acphttp.Conn) error {
		a := &agent{}
		a.conn = acp.NewAgentConn(a, c, c, acp.ConnOptions{RPC: acp.RPCOptions{Logger: quiet}})
		return a.conn.Run(ctx)
	}, acphttp.Options{Logger: quiet, MaxConnections: maxConnections, RetainMessages: retainMessages})
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	err := acphttp.ListenAndServe(ctx, "127.0.0.1:0", srv, acphttp.ServeOptions{
		DrainTimeout: time.Second,
		Listening:    func(a net.Addr) { tell("acp http://" + a.String() + "/acp") },
	})
	if err != nil && !errors.Is(err, context.Canceled) {
		fatal(err)
	}
}

func runStdioAgent() {
	serveControl()
	a := &agent{}
	a.conn = acp.NewAgentConn(a, os.Stdin, os.Stdout, acp.ConnOptions{RPC: acp.RPCOptions{Logger: quiet}})
	if err := a.conn.Run(context.Background()); err != nil {
		fatal(err)
	}
}

func drive(c config) error {
	raiseFDLimit(uint64(2*(c.ws+c.http+c.sessions) + 4*c.floodConns + 4096))
	fmt.Printf("netload: %s %s/%s, %d CPUs, %s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), time.Now().UTC().Format(time.RFC3339))
	fmt.Printf("args: %s\n", strings.Join(os.Args[1:], " "))
	stdio, err := startStdio(c)
	defer stdio.stop()
	if err != nil {
		return fmt.Errorf("stdio: %w", err)
	}
	for _, r := range c.retain {
		var n int
		switch r {
		case "off":
			n = -1
		case "on":
			n = 0
		default:
			return fmt.Errorf("-retain: %q is neither off nor on", r)
		}
		if err := runMode(c, r, n, stdio); err != nil {
			return fmt.Errorf("retain %s: %w", r, err)
		}
	}
	fmt.Printf("load average at the end: %s\n", loadavg())
	return nil
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// runMode measures one server: idle connections, streaming sessions, floods.
func runMode(c config, name string, retainMessages int, stdio *stdioAgents) error {
	srv, err := startChild(false, []string{"acp"}, "-serve", "-retain-messages", strconv.Itoa(retainMessages), "-max-connections", strconv.Itoa(c.maxConnections))
	if err != nil {
		return err
	}
	defer srv.stop()
	fmt.Printf("\n== resumable log %s (RetainMessages %d)\n", name, retainMessages)
	fmt.Fprintf(os.Stderr, "netload: server pid %d, control %s\n", srv.cmd.Process.Pid, srv.control)
	d := newDialer(srv.lines["acp"])
	ctx := context.Background()
	base, err := settled(srv, c.settle)
	if err != nil {
		return err
	}
	printIdle("server before connections", 1, base, usage{})
	pools := map[acphttp.Profile][]*client{}
	var all []*acphttp.Conn
	defer func() {
		for _, x := range all {
			x.Close()
		}
	}()
	prev := base
	for _, p := range []acphttp.Profile{acphttp.WebSocket, acphttp.StreamableHTTP} {
		n := c.ws
		if p == acphttp.StreamableHTTP {
			n = c.http
		}
		cl, conns, err := openMany(ctx, d, p, n, c.dialConcurrency)
		all = append(all, conns...)
		if err != nil {
			return err
		}
		pools[p] = cl
		u, err := settled(srv, c.settle)
		if err != nil {
			return err
		}
		printIdle("idle "+string(p), n, u, prev)
		if c.profile != "" {
			for _, kind := range []string{"heap", "goroutine"} {
				path := filepath.Join(c.profile, fmt.Sprintf("%s-%s-%s.pprof", name, p, kind))
				if err := srv.profile(kind, path); err != nil {
					return err
				}
			}
		}
		prev = u
	}
	for _, p := range []acphttp.Profile{acphttp.WebSocket, acphttp.StreamableHTTP} {
		if len(pools[p]) == 0 {
			continue
		}
		r, err := streamPhase(ctx, srv.usage, pools[p], c.sessions, c.updates, c.interval)
		if err != nil {
			return fmt.Errorf("stream %s: %w", p, err)
		}
		r.print("stream " + string(p))
	}
	return floodRounds(ctx, c, srv, pools, stdio)
}

// floodRounds floods stdio, then each profile, in turn, -rounds times, so
// that the machine's load falls alike on all three; each profile's CPU per
// update is compared with stdio's as medians over the rounds.
func floodRounds(ctx context.Context, c config, srv *child, pools map[acphttp.Profile][]*client, stdio *stdioAgents) error {
	perUpdate := map[string][]time.Duration{}
	for round := range c.rounds {
		r, err := streamPhase(ctx, stdio.usage, stdio.clients, c.floodConns, c.floodUpdates, 0)
		if err != nil {
			return fmt.Errorf("flood stdio: %w", err)
		}
		r.print(fmt.Sprintf("flood %d stdio", round+1))
		perUpdate["stdio"] = append(perUpdate["stdio"], r.perUpdate())
		for _, p := range []acphttp.Profile{acphttp.WebSocket, acphttp.StreamableHTTP} {
			if len(pools[p]) < c.floodConns {
				continue
			}
			r, err := streamPhase(ctx, srv.usage, pools[p][:c.floodConns], c.floodConns, c.floodUpdates, 0)
			if err != nil {
				return fmt.Errorf("flood %s: %w", p, err)
			}
			r.print(fmt.Sprintf("flood %d %s", round+1, p))
			perUpdate[string(p)] = append(perUpdate[string(p)], r.perUpdate())
		}
	}
	base := median(perUpdate["stdio"])
	fmt.Printf("%-28s stdio=%s", "flood median cpu/update", base)
	for _, p := range []acphttp.Profile{acphttp.WebSocket, acphttp.StreamableHTTP} {
		if v := perUpdate[string(p)]; len(v) > 0 {
			fmt.Printf(" %s=%s (%.2fx stdio)", p, median(v), float64(median(v))/float64(base))
		}
	}
	fmt.Println()
	return nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// settled waits, collects the server's garbage, and reads its usage.
func settled(srv *child, wait time.Duration) (usage, error) {
	time.Sleep(wait)
	before, err := srv.usage(false)
	if err != nil {
		return usage{}, err
	}
	if err := srv.gc(); err != nil {
		return usage{}, err
	}
	u, err := srv.usage(true)
	u.CPU = before.CPU
	// The resident set is reported as the connections left it and after a
	// collection that returns free memory to the system; the runtime's
	// figures are after the collection.
	u.RSSAfterGC, u.RSS = u.RSS, before.RSS
	return u, err
}

func printIdle(what string, n int, u, prev usage) {
	const mib = 1 << 20
	if prev.RSS == 0 {
		fmt.Printf("%-28s rss=%.1fMiB rss-after-gc=%.1fMiB heap=%.1fMiB stacks=%.1fMiB goroutines=%d\n", what, float64(u.RSS)/mib, float64(u.RSSAfterGC)/mib, float64(u.HeapInuse)/mib, float64(u.StackInuse)/mib, u.Goroutines)
		return
	}
	per := func(a, b uint64) float64 { return (float64(a) - float64(b)) / float64(n) / 1024 }
	fmt.Printf("%-28s conns=%d rss=%.1fMiB rss/conn=%.1fKiB rss-after-gc/conn=%.1fKiB heap/conn=%.1fKiB stacks/conn=%.1fKiB goroutines/conn=%.2f\n",
		what, n, float64(u.RSS)/mib, per(uint64(u.RSS), uint64(prev.RSS)), per(uint64(u.RSSAfterGC), uint64(prev.RSSAfterGC)), per(u.HeapInuse, prev.HeapInuse), per(u.StackInuse, prev.StackInuse),
		float64(u.Goroutines-prev.Goroutines)/float64(n))
}

// openMany opens n connections of profile p, conc at a time.
func openMany(ctx context.Context, d *dialer, p acphttp.Profile, n, conc int) ([]*client, []*acphttp.Conn, error) {
	clients := make([]*client, n)
	conns := make([]*acphttp.Conn, n)
	errs := make(chan error, n)
	sem := make(chan struct{}, conc)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			cctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			cl, conn, err := d.open(cctx, p)
			if err != nil {
				errs <- fmt.Errorf("%s connection %d: %w", p, i, err)
				return
			}
			clients[i], conns[i] = cl, conn
		}()
	}
	wg.Wait()
	close(errs)
	opened := slices.DeleteFunc(conns, func(c *acphttp.Conn) bool { return c == nil })
	if err := <-errs; err != nil {
		return nil, opened, err
	}
	return clients, conns, nil
}

// result is one streaming phase's figures.
type result struct {
	sessions, want, got, lost, reordered int
	wall                                 time.Duration
	cpu                                  time.Duration // the agent side's
	gcCycles                             uint64        // the agent side's collections
	clientCPU                            time.Duration // the driver's
	lat                                  []int32
}

// streamPhase opens n sessions over clients, round robin, and has each
// stream count updates, one per interval, all at once.
func streamPhase(ctx context.Context, use func(bool) (usage, error), clients []*client, n, count int, interval time.Duration) (*result, error) {
	type sess struct {
		c  *client
		id acp.SessionID
	}
	ss := make([]sess, n)
	for i := range ss {
		cl := clients[i%len(clients)]
		id, err := cl.newSession(ctx)
		if err != nil {
			return nil, err
		}
		ss[i] = sess{cl, id}
	}
	return measure(use, func() error {
		errs := make(chan error, n)
		var wg sync.WaitGroup
		for _, s := range ss {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := s.c.stream(ctx, s.id, count, interval); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		return <-errs
	}, func(r *result) {
		r.sessions, r.want = n, n*count
		// The updates of a turn precede its answer; the last ones may
		// still be with the client's notification handler.
		deadline := time.Now().Add(5 * time.Second)
		for _, s := range ss {
			for s.c.received(s.id) < count && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			t := s.c.take(s.id)
			r.got += t.got
			r.lost += max(count-t.got, 0)
			r.reordered += t.reordered
			r.lat = append(r.lat, t.lat...)
		}
	})
}

// measure runs work between two readings of the agent side's CPU time.
func measure(use func(bool) (usage, error), work func() error, collect func(*result)) (*result, error) {
	before, err := use(false)
	if err != nil {
		return nil, err
	}
	start, startCPU := time.Now(), cpuTime()
	if err := work(); err != nil {
		return nil, err
	}
	wall, clientCPU := time.Since(start), cpuTime()-startCPU
	after, err := use(false)
	if err != nil {
		return nil, err
	}
	r := &result{wall: wall, cpu: after.CPU - before.CPU, gcCycles: after.GCCycles - before.GCCycles, clientCPU: clientCPU}
	collect(r)
	return r, nil
}

func (r *result) perUpdate() time.Duration { return r.cpu / time.Duration(max(r.got, 1)) }

func (r *result) print(what string) {
	slices.Sort(r.lat)
	pct := func(p float64) time.Duration {
		if len(r.lat) == 0 {
			return 0
		}
		return time.Duration(r.lat[int(p*float64(len(r.lat)-1))]) * time.Microsecond
	}
	n := time.Duration(max(r.got, 1))
	fmt.Printf("%-28s sessions=%d updates=%d/%d lost=%d reordered=%d updates/s=%.0f p50=%s p99=%s cpu/update=%s gc-cycles=%d client-cpu/update=%s\n",
		what, r.sessions, r.got, r.want, r.lost, r.reordered, float64(r.got)/r.wall.Seconds(), pct(0.50), pct(0.99),
		r.perUpdate(), r.gcCycles, r.clientCPU/n)
}

// stdioAgents are the agents of the stdio floods, one process each, with
// the driver's connection to each.
type stdioAgents struct {
	agents  []*child
	clients []*client
}

func startStdio(c config) (*stdioAgents, error) {
	s := &stdioAgents{}
	for range c.floodConns {
		a, err := startChild(true, nil, "-stdio-agent")
		if err != nil {
			return s, err
		}
		s.agents = append(s.agents, a)
		cl, err := start(context.Background(), a.stdout, a.stdin)
		if err != nil {
			return s, err
		}
		s.clients = append(s.clients, cl)
	}
	return s, nil
}

// usage sums the agents' CPU time.
func (s *stdioAgents) usage(bool) (usage, error) {
	var sum usage
	for _, a := range s.agents {
		u, err := a.usage(false)
		if err != nil {
			return usage{}, err
		}
		sum.CPU += u.CPU
		sum.GCCycles += u.GCCycles
	}
	return sum, nil
}

func (s *stdioAgents) stop() {
	for _, a := range s.agents {
		a.stop()
	}
}
