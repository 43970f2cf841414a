package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/acpgen/acpgen/internal/atomicfile"
)

// tables returns the Markdown tables in text: each a run of lines starting
// with "|", keyed by its header line.
func tables(text []byte) (order []string, byHeader map[string][]byte) {
	byHeader = map[string][]byte{}
	lines := bytes.SplitAfter(text, []byte("\n"))
	for i := 0; i < len(lines); {
		if !bytes.HasPrefix(lines[i], []byte("|")) {
			i++
			continue
		}
		j := i
		var t []byte
		for ; j < len(lines) && bytes.HasPrefix(lines[j], []byte("|")); j++ {
			t = append(t, lines[j]...)
		}
		h := string(bytes.TrimRight(lines[i], "\n"))
		order = append(order, h)
		byHeader[h] = t
		i = j
	}
	return order, byHeader
}

// splice replaces each table of doc whose header line is the header of one
// of fresh's tables with that table; the prose around them is kept. A fresh
// table the doc lacks is an error, so a renamed column is not silently
// dropped.
func splice(doc, fresh []byte) ([]byte, error) {
	order, byHeader := tables(fresh)
	lines := bytes.SplitAfter(doc, []byte("\n"))
	var out []byte
	used := map[string]bool{}
	for i := 0; i < len(lines); {
		h := string(bytes.TrimRight(lines[i], "\n"))
		t, ok := byHeader[h]
		if !ok || !bytes.HasPrefix(lines[i], []byte("|")) {
			out = append(out, lines[i]...)
			i++
			continue
		}
		out = append(out, t...)
		used[h] = true
		for i < len(lines) && bytes.HasPrefix(lines[i], []byte("|")) {
			i++
		}
	}
	for _, h := range order {
		if !used[h] {
			return nil, fmt.Errorf("no table with the header %q", h)
		}
	}
	return out, nil
}

// writeInto splices fresh's tables into the file, replacing it atomically
// (a reader sees the old file or the new one, never part of it).
func writeInto(file string, fresh []byte) error {
	doc, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	out, err := splice(doc, fresh)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return atomicfile.Write(file, out, 0o644)
}
