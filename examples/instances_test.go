package examples

import (
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// dispatchInstances are the runtime/dispatch instantiations gen/acp may
// compile, by generic name, with why: none, since descriptors carry their
// messages' wire.Tables and the connection allocates by reflection.
var dispatchInstances = map[string]string{}

// TestDispatchCompilesNoInstancePerMethod lists the functions in gen/acp's
// archive. Go compiles a generic function, a method of a generic type and
// a method such a type promotes once per type argument, in the package
// that instantiates it, even for pointers (a wrapper around the shared
// body); so a descriptor typed by its messages, or a route per method,
// would cost gen/acp functions per method. None may be runtime/dispatch's
// or take one of its types as a type argument, apart from
// dispatchInstances, each of which must still occur.
func TestDispatchCompilesNoInstancePerMethod(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gen/acp")
	}
	archive := filepath.Join(t.TempDir(), "acp.a")
	if out, err := exec.Command("go", "build", "-o", archive, "../gen/acp").CombinedOutput(); err != nil {
		t.Fatalf("go build ../gen/acp: %v\n%s", err, out)
	}
	out, err := exec.Command("go", "tool", "nm", archive).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	found := dispatchInstanceNames(string(out))
	var names []string
	for name := range found {
		if _, ok := dispatchInstances[name]; !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		t.Errorf("gen/acp compiles %d instances of %s", found[name], name)
	}
	for name := range dispatchInstances {
		if found[name] == 0 {
			t.Errorf("dispatchInstances: %s no longer occurs; remove it", name)
		}
	}
}

// dispatchInstanceNames counts the text symbols in nm's output that
// instantiate a generic with runtime/dispatch in the name or the type
// arguments, by generic name without its module path.
func dispatchInstanceNames(nm string) map[string]int {
	const module = "github.com/acpgen/acpgen/"
	found := map[string]int{}
	for _, line := range strings.Split(nm, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[1] != "T" {
			continue
		}
		sym := strings.Join(f[2:], " ")
		open := strings.IndexByte(sym, '[')
		if open < 0 || !strings.Contains(sym, module+"runtime/dispatch") {
			continue
		}
		found[strings.TrimPrefix(sym[:open], module)]++
	}
	return found
}
