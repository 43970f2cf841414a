package generator_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/internal/pinned"
)

// TestNoUpstreamProse: the committed gen/ carries only comments we generate,
// never the schema's description sentences (links to upstream docs are facts
// and allowed).
func TestNoUpstreamProse(t *testing.T) {
	var sentences []string
	for _, name := range []string{"schema.json", "schema.unstable.json"} {
		data := pinned.File(t, name)
		var doc any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		var walk func(any)
		walk = func(n any) {
			switch n := n.(type) {
			case map[string]any:
				for k, v := range n {
					if s, ok := v.(string); ok && k == "description" {
						for _, line := range strings.Split(s, "\n") {
							line = strings.TrimSpace(line)
							if len(line) >= 30 && !strings.Contains(line, "https://") {
								sentences = append(sentences, line)
							}
						}
					}
					walk(v)
				}
			case []any:
				for _, v := range n {
					walk(v)
				}
			}
		}
		walk(doc)
	}
	if len(sentences) < 100 {
		t.Fatalf("only %d description lines found; the check would prove nothing", len(sentences))
	}
	files, _ := filepath.Glob(filepath.Join("..", "gen", "acp", "*.go"))
	more, _ := filepath.Glob(filepath.Join("..", "gen", "acp", "unstable", "*.go"))
	files = append(files, more...)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		for _, s := range sentences {
			if strings.Contains(text, s) {
				t.Errorf("%s carries upstream description text: %q", f, s)
				break
			}
		}
	}
}
