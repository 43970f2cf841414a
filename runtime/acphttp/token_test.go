package acphttp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// LoadToken takes -token, else -token-file's content, else $ACP_TOKEN;
// both flags, a missing file, and a file with no token or several lines are
// refused.
func TestLoadToken(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good, empty, twoLines := file("good", "  s3cret\n"), file("empty", " \n"), file("two", "a\nb\n")
	t.Setenv(TokenEnv, "from-env")
	for _, tc := range []struct {
		name, flag, file, want, err string
	}{
		{"flag", "from-flag", "", "from-flag", ""},
		{"file", "", good, "s3cret", ""},
		{"environment", "", "", "from-env", ""},
		{"both flags", "from-flag", good, "", "not both"},
		{"missing file", "", filepath.Join(dir, "none"), "", "no such file"},
		{"empty file", "", empty, "", "no token"},
		{"two lines", "", twoLines, "", "more than one line"},
	} {
		got, err := LoadToken(tc.flag, tc.file)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: %q, %v; want %q, error containing %q", tc.name, got, err, tc.want, tc.err)
		}
	}
	t.Setenv(TokenEnv, "")
	if got, err := LoadToken("", ""); got != "" || err != nil {
		t.Errorf("nothing set: %q, %v; want no token", got, err)
	}
}
