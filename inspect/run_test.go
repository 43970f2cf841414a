package inspect

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"
)

// The inspector ends with the agent's exit status, and the end of its
// stdin is the end of the agent's (the burst agent exits 0 at its EOF).
func TestAgentExitStatus(t *testing.T) {
	p := testProfiles(t)
	self, _ := os.Executable()
	for _, c := range []struct {
		argv []string
		want int
	}{
		{[]string{"sh", "-c", "exit 7"}, 7},
		{[]string{"sh", "-c", "kill -TERM $$"}, 128 + 15},
		{[]string{self, "-helper=burst:0", "--"}, 0},
	} {
		var stdout strings.Builder
		res, err := Run(context.Background(), Options{Argv: c.argv, Profiles: p, Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitStatus != c.want {
			t.Errorf("%q: exit status %d, want %d", c.argv, res.ExitStatus, c.want)
		}
	}
	if _, err := Run(context.Background(), Options{Profiles: p}); err == nil {
		t.Error("no agent command: no error")
	}
}
