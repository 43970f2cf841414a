// Package templates holds the starter programs `acpgen scaffold` writes: an
// ACP agent, an ACP client and an ACP proxy on stdio, built on a package
// acpgen generated.
// They are text/template files embedded in the binary, so a scaffold needs
// nothing but the acpgen command.
//
// Layout: one folder per kind (agent/, client/, proxy/) whose NAME.tmpl files become
// NAME in the output folder, and module/go.mod.tmpl for a starter that is a
// module of its own.
package templates

import (
	"bytes"
	"embed"
	"fmt"
	"go/format"
	"io/fs"
	"path"
	"slices"
	"strings"
	"text/template"
)

//go:embed agent client proxy module
var files embed.FS

// Data is what the templates are executed with.
type Data struct {
	// Name is the program's name, used in comments and in the
	// clientInfo/agentInfo it sends.
	Name string
	// Import is the import path of the generated ACP package.
	Import string
	// Module is the module path written to go.mod; empty writes no go.mod
	// (the starter joins an existing module).
	Module string
	// GoVersion is go.mod's go directive.
	GoVersion string
	// HTTP makes the agent serve ACP over the network (runtime/acphttp)
	// instead of stdio.
	HTTP bool
	// Store, when set, keeps the agent's sessions in a session store: the
	// default of its -store flag (store.Open's spec).
	Store string
	// MCP makes the agent take MCP servers over ACP (the unstable
	// channel's mcp/message): it advertises mcpCapabilities.acp and calls
	// the servers a session declares through mcpacp.Caller, so the
	// starter requires the github.com/acpgen/acpgen/mcp module.
	MCP bool
	// Require lists go.mod's requirements, in order; none when the
	// version of github.com/acpgen/acpgen is unknown (`go get` adds it).
	Require []Requirement
}

// Requirement is one module a new go.mod requires.
type Requirement struct {
	Path    string
	Version string
	// Replace, when set, is the right side of a replace directive for Path:
	// a folder (quoted when it needs it) or "MODULE VERSION".
	Replace string
}

// Kinds returns the kinds of starter, sorted.
func Kinds() []string {
	return []string{"agent", "client", "proxy"}
}

// dotFiles names the outputs whose names start with a dot, which embed
// leaves out of a folder: their templates are named without it.
var dotFiles = map[string]string{"gitignore": ".gitignore"}

// BinDir is the folder, inside the starter, that its printed build step
// writes the binary into; the starter's .gitignore ignores it.
const BinDir = "bin"

// Render executes the templates of a kind and returns the files to write, by
// slash-separated path relative to the output folder. Go files are gofmt'ed,
// so template whitespace never reaches the output.
func Render(kind string, d Data) (map[string][]byte, error) {
	if !slices.Contains(Kinds(), kind) {
		return nil, fmt.Errorf("unknown kind of starter %q (want %s)", kind, strings.Join(Kinds(), ", "))
	}
	if d.Name == "" || d.Import == "" {
		return nil, fmt.Errorf("templates: Name and Import are required")
	}
	names, err := fs.Glob(files, kind+"/*.tmpl")
	if err != nil {
		return nil, err
	}
	if d.Module != "" {
		names = append(names, "module/go.mod.tmpl")
	}
	out := make(map[string][]byte, len(names))
	for _, name := range names {
		src, err := files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		t, err := template.New(name).Option("missingkey=error").Parse(string(src))
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		if err := t.Execute(&b, d); err != nil {
			return nil, err
		}
		file := strings.TrimSuffix(path.Base(name), ".tmpl")
		if dot, ok := dotFiles[file]; ok {
			file = dot
		}
		data := b.Bytes()
		if strings.HasSuffix(file, ".go") {
			if data, err = format.Source(data); err != nil {
				return nil, fmt.Errorf("templates: %s does not parse as Go: %w", name, err)
			}
		} else if !bytes.HasSuffix(data, []byte("\n")) {
			data = append(data, '\n')
		}
		out[file] = data
	}
	return out, nil
}
