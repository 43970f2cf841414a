package overlay_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/acpgen/acpgen/generator/overlay"
)

// FuzzOverlay feeds arbitrary bytes to the overlay loader (format
// validation, then application to a small ACP-shaped base): it must never
// panic, and every failure must be an error naming the file. Seeds: the
// repository's overlays, the golden negative cases, testdata/fuzz/FuzzOverlay.
func FuzzOverlay(f *testing.F) {
	base, err := os.ReadFile(filepath.Join("..", "..", "golden", "testdata", "base.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, pattern := range []string{"overlays/*.json", "overlays/vendor/*.json", "golden/testdata/negative/*.json"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", filepath.FromSlash(pattern)))
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := overlay.Parse("fuzz.json", data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		res, err := overlay.Apply(base, "base.json", []*overlay.Document{doc})
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if res == nil || len(res.Schema) == 0 {
			t.Fatal("no error and no schema")
		}
	})
}
