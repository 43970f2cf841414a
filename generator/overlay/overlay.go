// Package overlay applies RFD and vendor overlays to a base schema.
package overlay

import (
	"errors"

	"github.com/acpgen/acpgen/generator/tables"
)

// Info is an overlay's provenance, carried into generated doc comments.
type Info struct {
	ID     string // short id written into x-acpgen-overlay of what it touches
	Title  string
	URL    string
	Status string // e.g. "draft", "proposed", "vendor extension"
}

// Status reports what one change of one overlay did to the base.
type Status struct {
	Overlay string // overlay id
	Change  string // the change's label or target
	State   string // "added", "upstream", "tightened" or "conflict"
	Pointer string // JSON pointer in the base schema
	Detail  string
}

// Result is the outcome of applying overlays to one base schema.
type Result struct {
	Schema   []byte // the merged schema document
	Overlays []Info
	Statuses []Status
	Gates    []tables.Gate
}

// ApplyFiles applies the overlay files in order to base (read from baseFile).
func ApplyFiles(base []byte, baseFile string, files []string) (*Result, error) {
	if len(files) == 0 {
		return &Result{Schema: base}, nil
	}
	return nil, errors.New("overlays are not implemented yet")
}
