package acpgentest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
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

// Load reads the file beside the package and fails, naming the file and
// both hashes, on any other content; a missing file fails naming it.
func TestLoad(t *testing.T) {
	body := read(t, filepath.Join("..", "golden", "testdata", "base.json"))
	dir := t.TempDir()
	write(t, filepath.Join(dir, "pkg", "testdata", "schema.json"), body)
	t.Chdir(filepath.Join(dir, "pkg"))

	s := Schema{Channel: "stable", Path: "testdata/schema.json", SHA256: hash(body)}
	if got := s.Load(t); !bytes.Equal(got, body) {
		t.Error("Load differs from the file")
	}
	s.SHA256 = strings.Repeat("0", 64)
	msg := failure(t, s)
	for _, want := range []string{filepath.FromSlash("testdata/schema.json"), hash(body), s.SHA256, "acpgen generate"} {
		if !strings.Contains(msg, want) {
			t.Errorf("hash mismatch: %q lacks %q", msg, want)
		}
	}
	s.Path = "testdata/gone.json"
	if msg := failure(t, s); !strings.Contains(msg, "gone.json") {
		t.Errorf("missing file: %q", msg)
	}
	if msg := failure(t, Schema{}); msg == "" {
		t.Error("a Schema naming nothing loaded")
	}
}
