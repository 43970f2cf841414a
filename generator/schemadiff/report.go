package schemadiff

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/acpgen/acpgen/generator/ir"
	"github.com/acpgen/acpgen/generator/load"
	"github.com/acpgen/acpgen/generator/source"
)

// Channels are the schema files compared, by channel name.
var Channels = []struct{ Name, File string }{
	{"stable", source.StableFile},
	{"unstable", source.UnstableFile},
	{"v2", source.V2StableFile},
	{"v2-unstable", source.V2UnstableFile},
}

// Side is one revision: a schema folder, labelled for the report.
type Side struct {
	Label string // the version, or the folder as given
	Dir   string
}

var versionRE = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z._+-]*$`)

// Open resolves arg to a side: an existing folder is used as it is;
// anything else is taken as a version of the npm package and read from the
// schema cache, fetched into it when missing. No repository's schema folder
// or lock is touched.
func Open(ctx context.Context, arg string, o source.FetchOptions) (Side, error) {
	if fi, err := os.Stat(arg); err == nil && fi.IsDir() {
		return Side{Label: arg, Dir: arg}, nil
	}
	if !versionRE.MatchString(arg) {
		return Side{}, fmt.Errorf("%s: neither a schema folder nor a package version", arg)
	}
	dir, l, err := source.Fetch(ctx, o, nil, arg)
	if err != nil {
		return Side{}, err
	}
	return Side{Label: l.Version, Dir: dir}, nil
}

// Report is the comparison of two revisions, channel by channel.
type Report struct {
	Old, New string
	Channels []ChannelReport
}

// ChannelReport is the comparison of one channel.
type ChannelReport struct {
	Name    string
	File    string
	Note    string // why it was not compared, when it was not
	Changes []Change
}

// Class is the most severe class of any change (Docs when there is none).
func (r *Report) Class() Class {
	c := Docs
	for _, ch := range r.Channels {
		for _, x := range ch.Changes {
			c = max(c, x.Class)
		}
	}
	return c
}

// Count is the number of changes in every channel.
func (r *Report) Count() int {
	n := 0
	for _, ch := range r.Channels {
		n += len(ch.Changes)
	}
	return n
}

// Diff compares the channels (all when channels is empty) of two schema
// folders. A channel present on one side only is noted, not compared:
// releases before 2.0 ship the unstable schema alone.
func Diff(old, new Side, channels []string) (*Report, error) {
	r := &Report{Old: old.Label, New: new.Label}
	for _, c := range Channels {
		if len(channels) > 0 && !slices.Contains(channels, c.Name) {
			continue
		}
		cr := ChannelReport{Name: c.Name, File: c.File}
		a, errA := read(old.Dir, c.File)
		b, errB := read(new.Dir, c.File)
		switch {
		case errA != nil && !errors.Is(errA, fs.ErrNotExist):
			return nil, errA
		case errB != nil && !errors.Is(errB, fs.ErrNotExist):
			return nil, errB
		case errA != nil && errB != nil:
			cr.Note = "in neither revision"
		case errA != nil:
			cr.Note = fmt.Sprintf("only in %s (%s has no %s): not compared", new.Label, old.Label, c.File)
		case errB != nil:
			cr.Note = fmt.Sprintf("only in %s (%s has no %s): not compared", old.Label, new.Label, c.File)
		default:
			cr.Changes = Compare(a, b)
		}
		r.Channels = append(r.Channels, cr)
	}
	if len(r.Channels) == 0 {
		return nil, fmt.Errorf("no channel among %v", channels)
	}
	return r, nil
}

func read(dir, file string) (*Surface, error) {
	doc, err := load.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return nil, err
	}
	m, err := ir.Build(doc, "")
	if err != nil {
		return nil, err
	}
	return Extract(m), nil
}

// Text writes the report for a terminal.
func (r *Report) Text(w io.Writer) {
	fmt.Fprintf(w, "schema diff %s -> %s\n", r.Old, r.New)
	for _, ch := range r.Channels {
		fmt.Fprintf(w, "\n%s (%s): %s\n", ch.Name, ch.File, ch.summary())
		for _, c := range ch.Changes {
			line := fmt.Sprintf("  %-8s %-7s %-10s %s", c.Class, c.Op, c.Category, c.Subject)
			if c.Detail != "" {
				line += ": " + c.Detail
			}
			fmt.Fprintln(w, line+c.goText())
		}
	}
	fmt.Fprintf(w, "\n%s\n", r.verdict())
}

func (ch *ChannelReport) summary() string {
	if ch.Note != "" {
		return ch.Note
	}
	if len(ch.Changes) == 0 {
		return "no changes"
	}
	n := map[Class]int{}
	for _, c := range ch.Changes {
		n[c.Class]++
	}
	var parts []string
	for _, c := range []Class{Breaking, Additive, Docs} {
		if n[c] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[c], c))
		}
	}
	return strings.Join(parts, ", ")
}

func (r *Report) verdict() string {
	if r.Count() == 0 {
		return "no changes"
	}
	switch r.Class() {
	case Breaking:
		return "breaking: a Go SDK generated from the new schema needs a major version"
	case Additive:
		return "additive: a Go SDK generated from the new schema needs a minor version"
	}
	return "documentation only: the generated Go API is unchanged"
}

// Markdown writes the report for release notes.
func (r *Report) Markdown(w io.Writer) {
	fmt.Fprintf(w, "## ACP schema changes: %s → %s\n\n", r.Old, r.New)
	fmt.Fprintf(w, "**%s**\n", capitalize(r.verdict()))
	for _, ch := range r.Channels {
		fmt.Fprintf(w, "\n### %s (`%s`)\n\n", ch.Name, ch.File)
		if ch.Note != "" || len(ch.Changes) == 0 {
			fmt.Fprintf(w, "%s.\n", capitalize(ch.summary()))
			continue
		}
		for _, class := range []Class{Breaking, Additive, Docs} {
			var rows []Change
			for _, c := range ch.Changes {
				if c.Class == class {
					rows = append(rows, c)
				}
			}
			if len(rows) == 0 {
				continue
			}
			fmt.Fprintf(w, "#### %s (%d)\n\n", capitalize(class.String()), len(rows))
			if class == Docs {
				names := make([]string, len(rows))
				for i, c := range rows {
					names[i] = "`" + c.Subject + "`" + c.goMarkdown()
				}
				fmt.Fprintf(w, "Description text changed: %s.\n\n", strings.Join(names, ", "))
				continue
			}
			var lenient []string
			for _, c := range rows {
				if class == Additive && c.Category == "decoding" {
					lenient = append(lenient, "`"+c.Subject+"`"+c.goMarkdown())
					continue
				}
				line := fmt.Sprintf("- %s %s `%s`", capitalize(c.Op), c.Category, c.Subject)
				if c.Detail != "" {
					line += ": " + mdEscape(c.Detail)
				}
				fmt.Fprintln(w, line+c.goMarkdown())
			}
			if len(lenient) > 0 {
				// Dozens of members typically gain x-deserialize-* at once;
				// one line keeps the notes readable.
				fmt.Fprintf(w, "- More lenient decoding (x-deserialize-\\* keywords or defaults) of %d members: %s\n", len(lenient), strings.Join(lenient, ", "))
			}
			fmt.Fprintln(w)
		}
	}
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// mdEscape keeps type expressions such as []*Foo from turning into Markdown.
func mdEscape(s string) string {
	return strings.NewReplacer("*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "<", "&lt;").Replace(s)
}

// goText names the subject's Go identifier after a report line, when it is
// spelled differently.
func (c Change) goText() string {
	if c.Go == "" || c.Go == c.Subject {
		return ""
	}
	return " [Go: " + c.Go + "]"
}

func (c Change) goMarkdown() string {
	if c.Go == "" || c.Go == c.Subject {
		return ""
	}
	return " (Go `" + c.Go + "`)"
}
