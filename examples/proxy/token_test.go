package main

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/runtime/acphttp"
)

// The token can stay off the command line: -token-file FILE (taken over
// $ACP_TOKEN), or $ACP_TOKEN alone; -token and -token-file together are a
// usage error (exit status 2).
func TestListenTokenFromFileOrEnvironment(t *testing.T) {
	needBinaries(t)
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(acphttp.TokenEnv, "from-env")
	byFile := listening(t, "-listen", "127.0.0.1:0", "-token-file", file)
	byEnv := listening(t, "-listen", "127.0.0.1:0")
	bearer := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
	for _, c := range []struct {
		name, url string
		header    map[string]string
		want      int
	}{
		{"-token-file, the file's token", byFile, bearer("from-file"), http.StatusOK},
		{"-token-file, the environment's token", byFile, bearer("from-env"), http.StatusUnauthorized},
		{"$ACP_TOKEN, its token", byEnv, bearer("from-env"), http.StatusOK},
		{"$ACP_TOKEN, no token", byEnv, nil, http.StatusUnauthorized},
	} {
		if got := post(t, ctx, c.url, c.header); got != c.want {
			t.Errorf("%s: status %d, want %d", c.name, got, c.want)
		}
	}
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "proxy"), "-listen", "127.0.0.1:0", "-token", "t", "-token-file", file, "--", filepath.Join(bin, "agent"))
	out, _ := cmd.CombinedOutput()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "not both") {
		t.Errorf("-token and -token-file: %s, want exit status 2 and the refusal", out)
	}
}
