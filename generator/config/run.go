package config

import (
	"context"
	"io"

	"github.com/acpgen/acpgen/generator/output"
)

// Run is one `acpgen generate`: the configuration found and resolved, the
// schema prepared, every configured channel generated in memory, then
// written all-or-nothing or, with Check, compared with what is on disk.
type Run struct {
	Config    string    // the configuration file; "" finds one (Find)
	Overrides Overrides // flags
	// Check compares instead of writing: nothing is written.
	Check bool
	// Changes lists, before writing, what the write changes (release
	// reports the files it wrote).
	Changes bool
	// Report receives generation notes (gates that match nothing); nil
	// discards them.
	Report io.Writer
	// Stderr receives fetch progress.
	Stderr io.Writer
}

// Outcome is what a Run did.
type Outcome struct {
	Resolved *Resolved
	Files    int // generated files
	// Changes are the stale, missing and extra files: what Check found, or
	// what the write changed when Run.Changes asked.
	Changes []output.Change
	Summary output.Summary // the write; zero with Check
}

// Do runs the generation.
func (o Run) Do(ctx context.Context) (*Outcome, error) {
	r, err := Setup(ctx, o.Config, o.Overrides, o.Stderr)
	if err != nil {
		return nil, err
	}
	if o.Report != nil {
		r.Config.Report = o.Report
	}
	files, err := r.Generate()
	if err != nil {
		return nil, err
	}
	out := &Outcome{Resolved: r, Files: len(files)}
	owned := r.Config.Owned()
	if o.Check || o.Changes {
		if out.Changes, err = output.Compare(r.Root, files, owned); err != nil || o.Check {
			return out, err
		}
	}
	out.Summary, err = output.WriteContext(ctx, r.Root, files, owned)
	return out, err
}
