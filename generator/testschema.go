package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/acpgen/acpgen/generator/load"
	"github.com/acpgen/acpgen/runtime/jsonpointer"
)

// testSchema is the schema a package's generated tests check it against:
// the merged schema doc, indented, with the description text of every
// schema left out. Descriptions change no rule, so a --check diff of the
// file shows only what the tests would check differently; member order is
// the document's, so the bytes are the same on every run.
func testSchema(doc *load.Document) ([]byte, error) {
	root, err := load.Parse(doc.Raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", doc.File, err)
	}
	var described []string
	load.Walk(doc.Root, func(s *load.Schema) bool {
		if s.Description != "" {
			described = append(described, s.Pointer)
		}
		return true
	})
	for _, p := range described {
		n, err := at(root, p)
		if err != nil {
			return nil, fmt.Errorf("%s#%s: %w", doc.File, p, err)
		}
		n.Members = slices.DeleteFunc(n.Members, func(m load.Member) bool { return m.Name == "description" })
	}
	var out bytes.Buffer
	if err := json.Indent(&out, root.JSON(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// at is the node a JSON pointer names inside root.
func at(root *load.Node, pointer string) (*load.Node, error) {
	toks, err := jsonpointer.Parse(pointer)
	if err != nil {
		return nil, err
	}
	n := root
	for _, tok := range toks {
		switch n.Kind {
		case load.Object:
			n = n.Get(tok)
		case load.Array:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.Items) {
				return nil, fmt.Errorf("no item %q", tok)
			}
			n = n.Items[i]
		default:
			n = nil
		}
		if n == nil {
			return nil, fmt.Errorf("no member %q", tok)
		}
	}
	return n, nil
}
