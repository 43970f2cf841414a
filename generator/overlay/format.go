package overlay

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/xeipuuv/gojsonschema"

	"github.com/acpgen/acpgen/generator/load"
	"github.com/acpgen/acpgen/runtime/jsonpointer"
)

// FormatSchema is the JSON Schema of overlay documents (format 1).
//
//go:embed overlay.schema.json
var FormatSchema []byte

// Document is one overlay file.
type Document struct {
	File    string   `json:"-"`
	Format  int      `json:"acpgenOverlay"`
	ID      string   `json:"id"`
	Title   string   `json:"title"`
	URL     string   `json:"url"`
	Status  string   `json:"status"`
	Kind    string   `json:"kind"` // "rfd" or "vendor"
	Notes   string   `json:"notes"`
	Changes []Change `json:"changes"`
}

// Change is one typed action of an overlay; Op says which fields apply (see
// overlay.schema.json).
type Change struct {
	Op    string `json:"op"`
	Label string `json:"label"`

	Def          string          `json:"def"`
	Defs         []string        `json:"defs"`
	SkipIfAbsent []string        `json:"skipIfAbsent"`
	Name         string          `json:"name"`
	Schema       json.RawMessage `json:"schema"`
	Required     bool            `json:"required"`
	Ephemeral    bool            `json:"ephemeral"`
	Gate         *Capability     `json:"gate"`
	PresentWhen  *Capability     `json:"presentWhen"`
	Illustrative bool            `json:"illustrative"`

	// method
	Method string     `json:"method"`
	Side   string     `json:"side"`
	Kind   string     `json:"kind"`
	Params *DefSchema `json:"params"`
	Result *DefSchema `json:"result"`

	// meta
	Member    string `json:"member"`
	Namespace string `json:"namespace"`

	// errorCodes
	Codes []ErrorCode `json:"codes"`
	Open  bool        `json:"open"`

	// roots
	Primary    string `json:"primary"`
	Additional string `json:"additional"`

	// alias
	Aliases []string `json:"aliases"`

	// filter
	Request string         `json:"request"`
	Item    string         `json:"item"`
	Members []FilterMember `json:"members"`

	// parsed and expanded schema fragments, by their pointer in the overlay
	schema, params, result *load.Node
}

// Capability names a capability by its path in an initialize message: dotted,
// or a JSON pointer when a member name holds a dot (jsonpointer.SplitPath).
type Capability struct {
	Capability string `json:"capability"`
}

// DefSchema is a named def an overlay adds.
type DefSchema struct {
	Def    string          `json:"def"`
	Schema json.RawMessage `json:"schema"`
}

// ErrorCode is one vendor error code.
type ErrorCode struct {
	Code  int64  `json:"code"`
	Title string `json:"title"`
	Wire  string `json:"wire"`
}

// FilterMember is one filtering member of a list request.
type FilterMember struct {
	Name  string `json:"name"`
	Match string `json:"match"` // "equal" or "ordered"
}

// AbsolutePath is the pattern "x-acpgen-path": "absolute" expands to: a POSIX
// path from the root, a Windows drive path (C:\ or C:/) or a UNC path
// (\\server\share, which also covers \\?\ forms). Drive-relative (C:x) and
// root-relative (\x) Windows paths are not absolute.
const AbsolutePath = `^(/|[A-Za-z]:[\\/]|\\\\[^\\/]+[\\/][^\\/]+)`

// AbsolutePathName names AbsolutePath in validation errors.
const AbsolutePathName = "an absolute path"

var (
	formatOnce   sync.Once
	formatSchema *gojsonschema.Schema
	formatErr    error
)

func compiledFormat() (*gojsonschema.Schema, error) {
	formatOnce.Do(func() {
		sl := gojsonschema.NewSchemaLoader()
		sl.Draft = gojsonschema.Draft7
		sl.AutoDetect = false
		formatSchema, formatErr = sl.Compile(gojsonschema.NewBytesLoader(FormatSchema))
	})
	return formatSchema, formatErr
}

// Error locates a problem in an overlay file by JSON pointer.
type Error struct {
	File    string
	Pointer string
	Msg     string
}

func (e *Error) Error() string { return fmt.Sprintf("%s#%s: %s", e.File, e.Pointer, e.Msg) }

// ReadFile reads and checks one overlay file.
func ReadFile(file string) (*Document, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return Parse(file, data)
}

// Parse checks an overlay document against FormatSchema, then its schema
// fragments against the loader, and returns it with x-acpgen-path expanded.
func Parse(file string, data []byte) (*Document, error) {
	if _, err := load.Parse(data); err != nil {
		return nil, &Error{file, "", "invalid JSON: " + err.Error()}
	}
	s, err := compiledFormat()
	if err != nil {
		return nil, fmt.Errorf("overlay format schema: %w", err)
	}
	res, err := s.Validate(gojsonschema.NewBytesLoader(data))
	if err != nil {
		return nil, &Error{file, "", err.Error()}
	}
	if !res.Valid() {
		return nil, formatError(file, res.Errors())
	}
	var doc Document
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, &Error{file, "", err.Error()}
	}
	doc.File = file
	for i := range doc.Changes {
		c := &doc.Changes[i]
		at := fmt.Sprintf("/changes/%d", i)
		if c.Op == "errorCodes" && c.Def == "ErrorCode" {
			return nil, &Error{file, at + "/def", "vendor error codes are a def of their own: ACP's ErrorCode gives the same numbers other meanings"}
		}
		for _, g := range []struct {
			c   *Capability
			ptr string
		}{{c.Gate, at + "/gate/capability"}, {c.PresentWhen, at + "/presentWhen/capability"}} {
			if g.c == nil {
				continue
			}
			if _, err := jsonpointer.SplitPath(g.c.Capability); err != nil {
				return nil, &Error{file, g.ptr, err.Error()}
			}
		}
		for _, f := range []struct {
			raw json.RawMessage
			dst **load.Node
			ptr string
		}{
			{c.Schema, &c.schema, at + "/schema"},
			{paramsRaw(c.Params), &c.params, at + "/params/schema"},
			{paramsRaw(c.Result), &c.result, at + "/result/schema"},
		} {
			if f.raw == nil {
				continue
			}
			n, err := fragment(file, f.ptr, f.raw)
			if err != nil {
				return nil, err
			}
			*f.dst = n
		}
	}
	return &doc, nil
}

func paramsRaw(d *DefSchema) json.RawMessage {
	if d == nil {
		return nil
	}
	return d.Schema
}

// fragment parses a schema fragment, expands x-acpgen-path and checks every
// keyword with the loader, so a typo fails here, naming the overlay file.
func fragment(file, ptr string, raw json.RawMessage) (*load.Node, error) {
	n, err := load.Parse(raw)
	if err != nil {
		return nil, &Error{file, ptr, err.Error()}
	}
	if err := expandPaths(file, ptr, n); err != nil {
		return nil, err
	}
	if _, err := load.FromNode(file, ptr, n); err != nil {
		return nil, err
	}
	return n, nil
}

// expandPaths turns the typed path rule into JSON Schema terms, so any
// validator of the merged schema checks it.
func expandPaths(file, ptr string, n *load.Node) error {
	switch n.Kind {
	case load.Array:
		for i, it := range n.Items {
			if err := expandPaths(file, fmt.Sprintf("%s/%d", ptr, i), it); err != nil {
				return err
			}
		}
	case load.Object:
		if v := get(n, "x-acpgen-path"); v != nil {
			if v.Kind != load.String || v.String != "absolute" {
				return &Error{file, ptr + "/x-acpgen-path", `the only path rule is "absolute"`}
			}
			if t := get(n, "type"); t == nil || !hasType(t, "string") {
				return &Error{file, ptr + "/x-acpgen-path", "a path rule applies to string schemas"}
			}
			del(n, "x-acpgen-path")
			set(n, "minLength", &load.Node{Kind: load.Number, Number: "1"})
			set(n, "pattern", str(AbsolutePath))
			set(n, "x-acpgen-pattern-name", str(AbsolutePathName))
		}
		for _, m := range n.Members {
			if err := expandPaths(file, ptr+"/"+jsonpointer.Escape(m.Name), m.Value); err != nil {
				return err
			}
		}
	}
	return nil
}

// formatError reports every violation of the format, each with its pointer.
// The if/then wrappers only repeat a specific error found beside them.
func formatError(file string, errs []gojsonschema.ResultError) error {
	var lines []string
	seen := map[string]bool{}
	for _, e := range errs {
		switch e.(type) {
		case *gojsonschema.ConditionThenError, *gojsonschema.ConditionElseError, *gojsonschema.NumberAllOfError:
			if len(errs) > 1 {
				continue
			}
		}
		ptr := contextPointer(e.Context())
		line := fmt.Sprintf("%s#%s: %s", file, ptr, e.Description())
		if !seen[line] {
			seen[line] = true
			lines = append(lines, line)
		}
	}
	sort.Strings(lines)
	return &FormatError{File: file, Lines: lines}
}

// FormatError lists the ways a file breaks the overlay format.
type FormatError struct {
	File  string
	Lines []string
}

func (e *FormatError) Error() string {
	return "not a valid acpgen overlay:\n  " + strings.Join(e.Lines, "\n  ")
}

// contextPointer turns gojsonschema's "(root).changes.0" context into a JSON pointer.
func contextPointer(c *gojsonschema.JsonContext) string {
	var b strings.Builder
	for _, part := range strings.Split(c.String("\x00"), "\x00") {
		if part != "(root)" {
			b.WriteString("/" + jsonpointer.Escape(part))
		}
	}
	return b.String()
}
