package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// netFiles are bench/netload's outputs: the full load (10,000 idle
// WebSockets) and a flood beside a handful of connections. Each holds one
// or more runs of the same command, each run a section per resumable-log
// setting.
var netFiles = []struct{ file, label string }{
	{"netload.txt", "under the full load"},
	{"netload-flood.txt", "beside 8 connections of each profile"},
}

// netRun is one run of bench/netload: per log setting ("off", "on"), per
// report line label ("idle websocket", "flood median cpu/update"), its
// key=value fields as numbers (sizes in KiB, durations in µs).
type netRun struct {
	args string
	sets map[string]map[string]map[string]float64
}

// parseNetload reads the runs of one bench/netload output.
func parseNetload(name string, data []byte) ([]netRun, error) {
	var runs []netRun
	var set string
	s := bufio.NewScanner(bytes.NewReader(data))
	for s.Scan() {
		t := s.Text()
		switch {
		case strings.HasPrefix(t, "netload: "):
			runs = append(runs, netRun{sets: map[string]map[string]map[string]float64{}})
			set = ""
		case strings.HasPrefix(t, "#") || t == "" || strings.HasPrefix(t, "load average"):
		case len(runs) == 0:
			return nil, fmt.Errorf("%s: %q before the first netload: line", name, t)
		case strings.HasPrefix(t, "args: "):
			runs[len(runs)-1].args = withoutProfile(strings.TrimPrefix(t, "args: "))
		case strings.HasPrefix(t, "== resumable log "):
			set = strings.Fields(t)[3]
			runs[len(runs)-1].sets[set] = map[string]map[string]float64{}
		default:
			label, fields, ok := strings.Cut(t, "  ")
			if !ok || set == "" {
				return nil, fmt.Errorf("%s: unexpected line %q", name, t)
			}
			runs[len(runs)-1].sets[set][label] = netFields(fields)
		}
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%s: no run", name)
	}
	for _, r := range runs[1:] {
		if r.args != runs[0].args {
			return nil, fmt.Errorf("%s: runs of different commands (%q, %q)", name, runs[0].args, r.args)
		}
	}
	return runs, nil
}

// netFields reads "k=v" tokens: plain numbers, "n/m" (the first), sizes
// (KiB) and durations (µs); other tokens are skipped.
func netFields(s string) map[string]float64 {
	out := map[string]float64{}
	for _, tok := range strings.Fields(s) {
		k, v, ok := strings.Cut(tok, "=")
		if !ok {
			continue
		}
		v, _, _ = strings.Cut(v, "/")
		if n, err := strconv.ParseFloat(v, 64); err == nil {
			out[k] = n
		} else if n, ok := strings.CutSuffix(v, "MiB"); ok {
			f, _ := strconv.ParseFloat(n, 64)
			out[k] = f * 1024
		} else if n, ok := strings.CutSuffix(v, "KiB"); ok {
			out[k], _ = strconv.ParseFloat(n, 64)
		} else if d, err := time.ParseDuration(v); err == nil {
			out[k] = float64(d) / 1e3
		}
	}
	return out
}

// netTables renders each netload output present in dir.
func netTables(w io.Writer, dir string) error {
	for _, f := range netFiles {
		data, err := os.ReadFile(filepath.Join(dir, f.file))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		runs, err := parseNetload(f.file, data)
		if err != nil {
			return err
		}
		netTable(w, f.file, f.label, runs)
	}
	return nil
}

func netTable(w io.Writer, file, label string, runs []netRun) {
	fmt.Fprintf(w, "\n| server %s | resumable log off | resumable log on | target |\n|---|---|---|---|\n", label)
	fmt.Fprintf(w, "| command (`bench/results/%s`, %d runs; medians of the runs, floods per run) | `go run ./bench/netload %s` | | |\n", file, len(runs), runs[0].args)
	// med is the median over runs of one field of one line, per setting.
	med := func(set, line, key string) float64 {
		var v []float64
		for _, r := range runs {
			v = append(v, r.sets[set][line][key])
		}
		return median(v)
	}
	sum := func(set, line, key string) (n float64) {
		for _, r := range runs {
			n += r.sets[set][line][key]
		}
		return n
	}
	row := func(what, target string, cell func(set string) string) {
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", what, cell("off"), cell("on"), target)
	}
	ws := med("off", "idle websocket", "conns")
	if ws >= 1000 {
		row(fmt.Sprintf("%.0f idle WebSocket connections: server RSS", ws), "≤ 1 GB: "+verdict(med("off", "idle websocket", "rss") <= 1<<20 && med("on", "idle websocket", "rss") <= 1<<20),
			func(s string) string {
				return fmt.Sprintf("%.0f MiB (%.1f KiB each)", med(s, "idle websocket", "rss")/1024, med(s, "idle websocket", "rss/conn"))
			})
		row("per idle WebSocket after a collection: RSS, heap, goroutine stacks (KiB)", "", func(s string) string {
			return fmt.Sprintf("%.1f, %.1f, %.1f", med(s, "idle websocket", "rss-after-gc/conn"), med(s, "idle websocket", "heap/conn"), med(s, "idle websocket", "stacks/conn"))
		})
		row("per idle Streamable HTTP connection: heap, goroutine stacks (KiB)", "", func(s string) string {
			return fmt.Sprintf("%.1f, %.1f", med(s, "idle streamable-http", "heap/conn"), med(s, "idle streamable-http", "stacks/conn"))
		})
		row("goroutines per idle connection: WebSocket, Streamable HTTP", "", func(s string) string {
			return fmt.Sprintf("%.2f, %.2f", med(s, "idle websocket", "goroutines/conn"), med(s, "idle streamable-http", "goroutines/conn"))
		})
		for _, p := range []struct{ line, name string }{{"stream websocket", "WebSocket"}, {"stream streamable-http", "Streamable HTTP"}} {
			ok := true
			for _, s := range []string{"off", "on"} {
				ok = ok && sum(s, p.line, "lost") == 0 && sum(s, p.line, "reordered") == 0
			}
			row(fmt.Sprintf("%.0f sessions streaming, %s: lost, reordered of all runs' updates; updates/s; p50, p99", med("off", p.line, "sessions"), p.name),
				"0 lost, 0 reordered: "+verdict(ok), func(s string) string {
					return fmt.Sprintf("%.0f, %.0f of %.0f; %.0f/s; %s, %s", sum(s, p.line, "lost"), sum(s, p.line, "reordered"), sum(s, p.line, "updates"),
						med(s, p.line, "updates/s"), latency(med(s, p.line, "p50")), latency(med(s, p.line, "p99")))
				})
		}
	}
	for i, r := range runs {
		f := func(s, k string) float64 { return r.sets[s]["flood median cpu/update"][k] }
		ok := true
		for _, s := range []string{"off", "on"} {
			ok = ok && f(s, "websocket") <= 2*f(s, "stdio") && f(s, "streamable-http") <= 3*f(s, "stdio")
		}
		row(fmt.Sprintf("flood, server CPU µs per update (median of the rounds), run %d: stdio, WebSocket, Streamable HTTP", i+1),
			"WebSocket ≤ 2×, Streamable HTTP ≤ 3×: "+verdict(ok), func(s string) string {
				st := f(s, "stdio")
				return fmt.Sprintf("%.2f, %.2f (%.2f×), %.2f (%.2f×)", st, f(s, "websocket"), f(s, "websocket")/st, f(s, "streamable-http"), f(s, "streamable-http")/st)
			})
	}
}

// latency prints µs as ms, or as s from 10 s up.
func latency(us float64) string {
	if us >= 1e7 {
		return strconv.FormatFloat(us/1e6, 'f', 1, 64) + " s"
	}
	if us >= 1e5 {
		return strconv.FormatFloat(us/1e3, 'f', 0, 64) + " ms"
	}
	return strconv.FormatFloat(us/1e3, 'f', 1, 64) + " ms"
}

// withoutProfile drops "-profile DIR" from netload's arguments: where the
// profiles were written does not change what was measured.
func withoutProfile(args string) string {
	f := strings.Fields(args)
	if i := slices.Index(f, "-profile"); i >= 0 && i+1 < len(f) {
		f = slices.Delete(f, i, i+2)
	}
	return strings.Join(f, " ")
}
