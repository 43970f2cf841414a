package conform

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpgen/acpgen/internal/pinned"
)

// A peer that sends Proxy Chains methods to the checker (a proxy taking it
// for its conductor) is reported in either dialect: _proxy/successor as
// proxy/successor is, never passed as an extension method; under the
// unstable schema as a method handled by the proxy, under stable as a
// Proxy Chains method.
func TestProxyChainNamesFromPeer(t *testing.T) {
	for _, channel := range []string{"", "unstable"} {
		p, err := LoadProfile(context.Background(), ProfileOptions{Config: filepath.Join(pinned.Root(t), "acpgen.json"), Channel: channel})
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"proxy/successor", "_proxy/successor"} {
			l := newFrameLog(p)
			l.see("agent", &frame{ID: []byte(`"x"`), Method: name, Params: []byte(`{"method":"session/update","params":{}}`)})
			k := l.kinds["requests of unknown methods"]
			if k == nil || len(k.violations) != 1 || !strings.HasPrefix(k.violations[0], name+": ") {
				t.Errorf("channel %q, %s: kinds %v, want one request of an unknown method", channel, name, l.kinds)
			}
			if l.kinds["extension requests"] != nil {
				t.Errorf("channel %q, %s: counted as an extension", channel, name)
			}
		}
	}
}
