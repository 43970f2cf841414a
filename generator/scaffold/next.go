package scaffold

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/acpgen/acpgen/generator"
	"github.com/acpgen/acpgen/templates"
)

// PrintNextSteps prints what was written and the commands that build it,
// runnable from the current folder.
func (st *Starter) PrintNextSteps(w io.Writer) {
	d, kind := st.Data, st.Kind
	where := fromHere(st.Out)
	names := make([]string, 0, 5)
	for _, n := range []string{".gitignore", kind + ".go", kind + "_test.go", "go.mod", "main.go"} {
		if _, err := os.Stat(filepath.Join(st.Out, n)); err == nil {
			names = append(names, n)
		}
	}
	fmt.Fprintf(w, "wrote a starter ACP %s in %s (%s) on %s", kind, where, strings.Join(names, ", "), d.Import)
	if st.Package.From != "" {
		fmt.Fprintf(w, " (from %s)", st.Package.From)
	}
	fmt.Fprintln(w)
	if d.Module == "" {
		fmt.Fprintf(w, "it joins the module at %s\n", fromHere(st.Parent))
	}
	for _, r := range d.Require {
		if r.Replace != "" {
			fmt.Fprintf(w, "its go.mod replaces %s with %s\n", r.Path, r.Replace)
		}
	}
	fmt.Fprintln(w, "next:")
	if where != "." {
		fmt.Fprintf(w, "  cd %s\n", where)
	}
	st.printModuleSteps(w)
	bin := templates.BinDir + "/" + d.Name // ignored by the starter's .gitignore
	switch {
	case kind == "agent" && d.HTTP:
		fmt.Fprintf(w, "  go build -o %s . && ./%s -listen 127.0.0.1:8080 -token TOKEN   # serves ACP at http://127.0.0.1:8080/acp (WebSocket and Streamable HTTP); without -token, loopback only\n", bin, bin)
		fmt.Fprintf(w, "  a client dials that URL with the token: acpgen scaffold client --http writes one\n")
	case kind == "agent":
		fmt.Fprintf(w, "  go build -o %s . && ./%s   # speaks ACP on stdin/stdout\n", bin, bin)
	case kind == "client" && d.HTTP:
		fmt.Fprintf(w, "  go build -o %s . && ./%s -token TOKEN -prompt 'Hello' http://127.0.0.1:8080/acp   # the agent's URL; dials again when the connection fails\n", bin, bin)
	case kind == "proxy":
		fmt.Fprintf(w, "  go build -o %s . && ./%s -- AGENT [ARGS...]   # an editor runs it in the agent's place; in a Proxy Chain: acpgen conduct -- ./%s -component ::: AGENT [ARGS...]\n", bin, bin, bin)
	default:
		fmt.Fprintf(w, "  go build -o %s . && ./%s -prompt 'Hello' AGENT [ARGS...]\n", bin, bin)
	}
}

// printModuleSteps prints the go commands that give the starter's module
// its requirement of acpgen.
func (st *Starter) printModuleSteps(w io.Writer) {
	d := st.Data
	switch {
	case d.Module == "" && !requiresAcpgen(st.Parent):
		fmt.Fprintf(w, "  %s\n", st.requireAcpgen())
		st.printRequireStore(w)
		if st.Install.Version == "" {
			fmt.Fprintf(w, "  go mod tidy\n")
		}
	case d.Module != "" && len(d.Require) == 0:
		fmt.Fprintf(w, "  %s\n", st.requireAcpgen())
		st.printRequireStore(w)
		fmt.Fprintf(w, "  go mod tidy\n")
	case d.Module == "" && (d.Store != "" || d.MCP):
		st.printRequireStore(w)
		fmt.Fprintf(w, "  go mod tidy\n")
	case d.Module != "":
		fmt.Fprintf(w, "  go mod tidy\n")
	}
}

// printRequireStore prints the commands that add acpgen's nested modules
// the starter uses (the store module when it keeps sessions in a store, the
// mcp module when it takes MCP servers over ACP) to a module whose go.mod
// the starter did not write: as acpgen is required (its version, else its
// checkout's folder of the module).
func (st *Starter) printRequireStore(w io.Writer) {
	var nested [][2]string
	if st.Data.Store != "" {
		nested = append(nested, [2]string{StoreModule, "store"})
	}
	if st.Data.MCP {
		nested = append(nested, [2]string{MCPModule, "mcp"})
	}
	req := st.requireAcpgen()
	for _, n := range nested {
		if v := st.Install.Version; v != "" {
			fmt.Fprintf(w, "  go get %s@%s\n", n[0], v)
			continue
		}
		dir, note, _ := strings.Cut(strings.TrimPrefix(req, "go mod edit -require="+generator.Module+"@v0.0.0 -replace="+generator.Module+"="), "   #")
		if note != "" {
			note = "   #" + note
		}
		fmt.Fprintf(w, "  go mod edit -require=%s@v0.0.0 -replace=%s=%s%s\n", n[0], n[0], filepath.Join(dir, n[1]), note)
	}
}

// requireAcpgen is the go command that adds acpgen to the module, as this
// acpgen was installed: its version, else a replace directive for the
// checkout it was built from (no version is published yet).
func (st *Starter) requireAcpgen() string {
	in := st.Install
	if in.Version != "" {
		return "go get " + generator.Module + "@" + in.Version
	}
	dir := in.Checkout
	if dir == "" && filepath.IsAbs(in.Replace) {
		dir = in.Replace
	}
	note := ""
	if dir == "" {
		dir, note = "/path/to/acpgen", "   # your checkout of acpgen: no version is published"
	}
	return fmt.Sprintf("go mod edit -require=%s@v0.0.0 -replace=%s=%s%s", generator.Module, generator.Module, dir, note)
}

// fromHere spells a folder for a command run in the current folder: "." for
// it, a relative path below it, else the absolute path.
func fromHere(dir string) string {
	cwd, err := os.Getwd()
	if err != nil {
		return dir
	}
	rel, err := filepath.Rel(cwd, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return dir
	}
	return rel
}
