package acpgentest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/generator/source"
)

// fatalTB records the message a failing Load gives.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatal(args ...any) {
	f.msg = fmt.Sprint(args...)
	runtime.Goexit()
}
func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// failure loads s and returns the failure message, "" when it loaded.
func failure(t *testing.T, s Schema) string {
	f := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Load(f)
	}()
	<-done
	return f.msg
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A package generated from a local folder finds the schema and its overlays
// through paths relative to its folder, and fails on any other file.
func TestLoadLocalFile(t *testing.T) {
	base := read(t, filepath.Join("..", "golden", "testdata", "base.json"))
	ov := read(t, filepath.Join("..", "overlays", "runtime-context.json"))
	dir := t.TempDir()
	write(t, filepath.Join(dir, "schemas", "base.json"), base)
	write(t, filepath.Join(dir, "overlays", "rc.json"), ov)
	write(t, filepath.Join(dir, "pkg", "x.go"), nil)
	t.Chdir(filepath.Join(dir, "pkg"))

	s := Schema{Channel: "unstable", File: "base.json", SHA256: hash(base), Path: "../schemas/base.json"}
	if got := s.Load(t); !bytes.Equal(got, base) {
		t.Error("without overlays, Load differs from the file")
	}
	s.Overlays = []string{"../overlays/rc.json"}
	if got := s.Load(t); !bytes.Contains(got, []byte(`"runtimeContext"`)) {
		t.Error("the overlay was not applied")
	}

	s.SHA256 = strings.Repeat("0", 64)
	msg := failure(t, s)
	for _, want := range []string{filepath.FromSlash("../schemas/base.json"), hash(base), s.SHA256} {
		if !strings.Contains(msg, want) {
			t.Errorf("hash mismatch: %q lacks %q", msg, want)
		}
	}
	s.Path = "../schemas/gone.json"
	if msg := failure(t, s); !strings.Contains(msg, "gone.json") {
		t.Errorf("missing file: %q", msg)
	}
}

// A release is read from the schema cache; a cached file that differs from
// the one the package was generated from fails naming both hashes.
func TestLoadRelease(t *testing.T) {
	body := read(t, filepath.Join("..", "golden", "testdata", "base.json"))
	cache := t.TempDir()
	t.Setenv(source.CacheEnv, cache)
	dir := source.VersionDir(cache, "9.9.9")
	write(t, filepath.Join(dir, source.StableFile), body)
	l := &source.Lock{Package: source.Package, Version: "9.9.9", Integrity: "sha512-" + strings.Repeat("A", 86) + "==",
		Files: map[string]string{source.StableFile: "sha256:" + hash(body)}}
	if err := l.Write(filepath.Join(dir, source.LockFile)); err != nil {
		t.Fatal(err)
	}
	s := Schema{Channel: "stable", File: source.StableFile, SHA256: hash(body), Package: source.Package, Version: "9.9.9"}
	if got := s.Load(t); !bytes.Equal(got, body) {
		t.Error("Load differs from the cached file")
	}
	s.SHA256 = strings.Repeat("0", 64)
	msg := failure(t, s)
	for _, want := range []string{filepath.Join(dir, source.StableFile), hash(body), s.SHA256} {
		if !strings.Contains(msg, want) {
			t.Errorf("hash mismatch: %q lacks %q", msg, want)
		}
	}
	s.Package = "other"
	if msg := failure(t, s); !strings.Contains(msg, `"other"`) {
		t.Errorf("other package: %q", msg)
	}
}

// A schema the generator could not locate fails every test that needs it.
func TestLoadUnavailable(t *testing.T) {
	if msg := failure(t, Schema{Unavailable: "no lock pins it"}); !strings.Contains(msg, "no lock pins it") {
		t.Errorf("unavailable: %q", msg)
	}
	if msg := failure(t, Schema{}); msg == "" {
		t.Error("a Schema naming nothing loaded")
	}
}
