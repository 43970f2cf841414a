package release

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/acpgen/acpgen/generator/goapi"
	"github.com/acpgen/acpgen/generator/schemadiff"
)

// Entry is the CHANGELOG.md entry of one release: the schema move it makes
// and what it changes, named by the Go identifiers the SDK's users see.
type Entry struct {
	Proposal Proposal
	Package  string // the schema's npm package
	From, To string // its versions
	Schema   *schemadiff.Report
	API      *goapi.Report
	// Module and NewModule are the module path and, for a major release
	// from v1 on, the path it moves to.
	Module, NewModule string
}

// Heading is the entry's first line, without a date so that the same
// release always renders the same bytes.
func (e *Entry) Heading() string {
	return fmt.Sprintf("## %s — %s %s → %s", e.Proposal.Next, e.Package, e.From, e.To)
}

// Markdown renders the entry: the heading, the Go API verdict, then per
// channel the schema changes grouped breaking / additive / docs.
func (e *Entry) Markdown() []byte {
	var b bytes.Buffer
	p := e.Proposal
	fmt.Fprintf(&b, "%s\n\n", e.Heading())
	fmt.Fprintf(&b, "Go API: **%s** (%s). ", p.Level, p.Note)
	if p.Base == (Version{}) {
		fmt.Fprintf(&b, "First release tag.\n")
	} else {
		fmt.Fprintf(&b, "Previous release: %s.\n", p.Base)
	}
	if e.NewModule != "" {
		fmt.Fprintf(&b, "\nThe module path changes from `%s` to `%s`.\n", e.Module, e.NewModule)
	}
	for _, ch := range e.Schema.Channels {
		api := e.apiChannel(ch.Name)
		fmt.Fprintf(&b, "\n### %s", ch.Name)
		if api != nil && api.Package != "" {
			fmt.Fprintf(&b, " (`%s`)", api.Package)
		}
		b.WriteString("\n\n")
		switch {
		case ch.Note != "":
			fmt.Fprintf(&b, "Not compared: %s.\n", strings.TrimSuffix(ch.Note, ": not compared"))
			continue
		case len(ch.Changes) == 0:
			b.WriteString("No schema changes.\n")
		}
		if api != nil && api.Note == "" {
			fmt.Fprintf(&b, "Go API: %d incompatible, %d compatible changes.\n", len(api.Incompatible), len(api.Compatible))
			if len(api.Incompatible) > 0 {
				b.WriteString("\n#### Incompatible Go API changes\n\n")
				for _, m := range api.Incompatible {
					b.WriteString("- " + apiLine(m) + "\n")
				}
			}
		}
		for _, class := range []schemadiff.Class{schemadiff.Breaking, schemadiff.Additive, schemadiff.Docs} {
			writeClass(&b, ch.Changes, class)
		}
	}
	return b.Bytes()
}

func (e *Entry) apiChannel(name string) *goapi.ChannelReport {
	if e.API == nil {
		return nil
	}
	for i := range e.API.Channels {
		if e.API.Channels[i].Name == name {
			return &e.API.Channels[i]
		}
	}
	return nil
}

// apiLine renders an apidiff message, "Foo.Bar: removed", with the
// identifier as code.
func apiLine(m string) string {
	id, rest, ok := strings.Cut(m, ": ")
	if !ok || strings.ContainsAny(id, " `") {
		return mdText(m)
	}
	return "`" + id + "`: " + mdText(rest)
}

func writeClass(b *bytes.Buffer, changes []schemadiff.Change, class schemadiff.Class) {
	var rows []schemadiff.Change
	for _, c := range changes {
		if c.Class == class {
			rows = append(rows, c)
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, "\n#### %s (%d)\n\n", strings.ToUpper(class.String()[:1])+class.String()[1:], len(rows))
	if class == schemadiff.Docs {
		names := make([]string, len(rows))
		for i, c := range rows {
			names[i] = "`" + c.Go + "`"
		}
		fmt.Fprintf(b, "Description text changed: %s.\n", strings.Join(names, ", "))
		return
	}
	var lenient []string
	for _, c := range rows {
		if class == schemadiff.Additive && c.Category == "decoding" {
			lenient = append(lenient, "`"+c.Go+"`")
			continue
		}
		line := fmt.Sprintf("- %s %s `%s`", strings.ToUpper(c.Op[:1])+c.Op[1:], c.Category, c.Go)
		if c.Category == "method" {
			// The wire name and kind, which the Go constant does not tell.
			line += " (`" + strings.Replace(c.Subject, " (", "` ", 1)
		}
		if c.GoDetail != "" {
			line += ": " + mdText(c.GoDetail)
		}
		b.WriteString(line + "\n")
	}
	if len(lenient) > 0 {
		fmt.Fprintf(b, "- More lenient decoding of %d members: %s\n", len(lenient), strings.Join(lenient, ", "))
	}
}

// mdText keeps type expressions such as []*Foo from turning into Markdown.
func mdText(s string) string {
	return strings.NewReplacer("*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "<", "&lt;", "`", "\\`").Replace(s)
}

// Prepend puts entry at the top of a changelog's entries: after its title
// and introduction (whatever precedes the first "## " heading), before every
// earlier entry, which is kept byte for byte. An empty or missing changelog
// gets a "# Changelog" title. A changelog that already has an entry for
// version is refused: tag it, or remove that entry, first.
func Prepend(existing, entry []byte, version Version) ([]byte, error) {
	entry = append(bytes.TrimRight(entry, "\n"), '\n')
	if len(bytes.TrimSpace(existing)) == 0 {
		return append([]byte("# Changelog\n\n"), entry...), nil
	}
	lines := bytes.SplitAfter(existing, []byte("\n"))
	at := -1
	offset := 0
	for i, l := range lines {
		text := strings.TrimRight(string(l), "\r\n")
		if strings.HasPrefix(text, "## ") {
			if f := strings.Fields(text); len(f) > 1 && f[1] == version.String() {
				return nil, fmt.Errorf("it already has an entry for %s (line %d): tag that release first, or remove the entry", version, i+1)
			}
			if at < 0 {
				at = offset
			}
		}
		offset += len(l)
	}
	var out bytes.Buffer
	if at < 0 {
		// Title and introduction only: the entry goes below them.
		out.Write(bytes.TrimRight(existing, "\n"))
		out.WriteString("\n\n")
		out.Write(entry)
		return out.Bytes(), nil
	}
	out.Write(existing[:at])
	if at > 0 && !bytes.HasSuffix(existing[:at], []byte("\n\n")) {
		out.WriteString("\n")
	}
	out.Write(entry)
	out.WriteString("\n")
	out.Write(existing[at:])
	return out.Bytes(), nil
}
