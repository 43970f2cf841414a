package bench

import (
	"encoding/json"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpgen/acpgen/generator"
	"github.com/acpgen/acpgen/generator/config"
	"github.com/acpgen/acpgen/generator/typecheck"
	"github.com/acpgen/acpgen/internal/pinned"
)

// repoConfig is the repository's own generation, as acpgen.json says, with
// the pinned release in the schema cache. Generation reads paths relative to
// the repository root, hence the Chdir.
func repoConfig(b *testing.B) generator.Config {
	b.Helper()
	b.Chdir("..")
	r, err := config.Setup(b.Context(), "", config.Overrides{}, os.Stderr)
	if err != nil {
		b.Fatal(err)
	}
	return r.Config
}

// The generation benchmarks need the pinned schema (`go run ./cmd/acpgen
// generate` pulls it). Generation reads paths relative to the repository
// root, hence the Chdir.

// BenchmarkGenerate is the repository's whole generation in-process: every
// channel acpgen.json configures, the RFD overlays, validators, gates, dispatch, meta tables; the
// output formatted with go/format as emitted. Each run is followed, outside
// the timing, by go/format alone on the same output (format-ms/op), so the
// ratio x-format is taken under the same machine conditions; peak-heap-MB is
// the largest heap a sampler saw.
func BenchmarkGenerate(b *testing.B) {
	cfg := repoConfig(b)
	var floor time.Duration
	b.ReportAllocs()
	peak := sampleHeap()
	for b.Loop() {
		files, err := generator.Generate(cfg)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		floor += formatAll(b, files)
		files = nil
		runtime.GC() // the floor's garbage is not the next run's to collect
		b.StartTimer()
	}
	b.ReportMetric(peak()/(1<<20), "peak-heap-MB")
	reportFloor(b, floor)
}

// BenchmarkTypecheck is the in-memory type-check every writing command runs
// on the repository's generation before anything is written, measured apart
// from generation (it is not part of the ratio to go/format). After the
// first run the standard library's loaded packages are reused, as in one
// process; BenchmarkGenerateProcess pays the first run.
func BenchmarkTypecheck(b *testing.B) {
	cfg := repoConfig(b)
	files, err := generator.Generate(cfg)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := typecheck.Check(files, cfg.SchemaDir); err != nil {
			b.Fatal(err)
		}
	}
}

// reportFloor reports the go/format time per op and the ratio to it.
func reportFloor(b *testing.B, floor time.Duration) {
	per := float64(floor.Nanoseconds()) / float64(b.N)
	b.ReportMetric(per/1e6, "format-ms/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/per, "x-format")
}

// formatAll formats every Go file of a generation with go/format alone: the
// floor any generator that emits formatted Go pays.
func formatAll(b *testing.B, files map[string][]byte) time.Duration {
	start := time.Now()
	for p, src := range files {
		if strings.HasSuffix(p, ".go") {
			if _, err := format.Source(src); err != nil {
				b.Fatal(err)
			}
		}
	}
	return time.Since(start)
}

// BenchmarkFormatFloor is go/format alone on the generated Go files.
func BenchmarkFormatFloor(b *testing.B) {
	files, err := generator.Generate(repoConfig(b))
	if err != nil {
		b.Fatal(err)
	}
	lines := 0
	for p, src := range files {
		if strings.HasSuffix(p, ".go") {
			lines += strings.Count(string(src), "\n")
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		formatAll(b, files)
	}
	b.ReportMetric(float64(lines), "lines")
}

// BenchmarkGenerateProcess runs `acpgen generate` as a whole process with
// the repository's configuration (pinned schema, RFD overlays) into a
// temporary root. peak-RSS-MB is the largest resident set of any run
// (getrusage). On Linux a child's figure is at least the starting process's
// resident set at the time, so run this benchmark in a test binary of its
// own (bench/run.sh does). Each run is followed, outside the timing, by
// go/format alone on the files it wrote.
func BenchmarkGenerateProcess(b *testing.B) {
	repo, err := filepath.Abs("..")
	if err != nil {
		b.Fatal(err)
	}
	bin := buildAcpgen(b, repo)
	root := b.TempDir()
	// The repository's configuration, with its outputs under root.
	args := []string{"generate", "--config", filepath.Join(repo, "acpgen.json"), "--root", root, "-q"}
	// Every configured channel (the pinned release is then in the cache);
	// root has no go.mod to derive import paths from.
	for _, ch := range repoConfig(b).Channels {
		args = append(args, "--import-path", ch.Name+"=example.com/"+ch.Name)
	}
	var maxRSS int64
	var floor time.Duration
	for b.Loop() {
		cmd := exec.Command(bin, args...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
		maxRSS = max(maxRSS, peakRSSKiB(cmd.ProcessState))
		b.StopTimer()
		floor += formatAll(b, readTree(b, root))
		b.StartTimer()
	}
	b.ReportMetric(float64(maxRSS)/1024, "peak-RSS-MB")
	reportFloor(b, floor)
}

// readTree reads every file under root, keyed by slash path.
func readTree(b *testing.B, root string) map[string][]byte {
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		out[filepath.ToSlash(p)] = data
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return out
}

var built struct {
	sync.Once
	bin string
	err error
	out []byte
}

func buildAcpgen(b *testing.B, repo string) string {
	built.Do(func() {
		dir, err := os.MkdirTemp("", "acpgen-bench-")
		if err != nil {
			built.err = err
			return
		}
		built.bin = filepath.Join(dir, "acpgen")
		cmd := exec.Command("go", "build", "-o", built.bin, "./cmd/acpgen")
		cmd.Dir = repo
		built.out, built.err = cmd.CombinedOutput()
	})
	if built.err != nil {
		b.Fatalf("build acpgen: %v\n%s", built.err, built.out)
	}
	return built.bin
}

// BenchmarkScale generates synthetic schemas of 1, 4 and 16 times the size
// of the v1 unstable schema (made here, not committed): the schema's $defs
// plus renamed copies whose references point at the copies. The copies carry
// no x-method and the routing unions (x-docs-ignore) are not copied, so the
// method tables stay those of the original; every other def is generated n
// times.
func BenchmarkScale(b *testing.B) {
	src := pinned.File(b, "schema.unstable.json")
	for _, n := range []int{1, 4, 16} {
		b.Run(itoa(n)+"x", func(b *testing.B) {
			dir := b.TempDir()
			data, defs, err := scaled(src, n)
			if err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "schema.unstable.json"), data, 0o644); err != nil {
				b.Fatal(err)
			}
			cfg := generator.Config{SchemaDir: dir, Channels: []generator.Channel{{
				Name: "unstable", SchemaFile: "schema.unstable.json", OutDir: "gen/acp/unstable",
				Package: "unstable", ImportPath: generator.Module + "/gen/acp/unstable",
			}}}
			b.ReportAllocs()
			var lines int
			for b.Loop() {
				files, err := generator.Generate(cfg)
				if err != nil {
					b.Fatal(err)
				}
				lines = 0
				for _, f := range files {
					lines += strings.Count(string(f), "\n")
				}
			}
			b.ReportMetric(float64(defs), "defs")
			b.ReportMetric(float64(lines), "lines")
		})
	}
}

// scaled returns the schema with n-1 renamed copies of every def added.
func scaled(src []byte, n int) ([]byte, int, error) {
	var doc map[string]any
	if err := json.Unmarshal(src, &doc); err != nil {
		return nil, 0, err
	}
	defs := doc["$defs"].(map[string]any)
	orig := make(map[string]any, len(defs))
	for k, v := range defs {
		orig[k] = v
	}
	for i := 2; i <= n; i++ {
		suffix := "Copy" + itoa(i)
		for name, def := range orig {
			if m, ok := def.(map[string]any); ok && m["x-docs-ignore"] == true {
				continue
			}
			c := renamed(def, suffix)
			if m, ok := c.(map[string]any); ok {
				delete(m, "x-method")
				delete(m, "x-side")
			}
			defs[name+suffix] = c
		}
	}
	out, err := json.Marshal(doc)
	return out, len(defs), err
}

// renamed deep-copies v, pointing every local $ref at the copy with suffix.
func renamed(v any, suffix string) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			if s, ok := e.(string); ok && k == "$ref" && strings.HasPrefix(s, "#/$defs/") {
				m[k] = s + suffix
				continue
			}
			m[k] = renamed(e, suffix)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = renamed(e, suffix)
		}
		return s
	}
	return v
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// sampleHeap samples the live heap until the returned func is called, which
// reports the peak in bytes. runtime/metrics reads do not stop the world.
func sampleHeap() func() float64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() float64 {
		close(stop)
		<-done
		runtime.KeepAlive(s)
		return float64(peak)
	}
}
