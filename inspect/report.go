package inspect

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/acpgen/acpgen/internal/atomicfile"
	"sort"
)

// The report is one HTML file with its style and script inline: it loads
// nothing, so it opens offline and leaks nothing of the session.
//
//go:embed templates/report.html.tmpl
var reportFiles embed.FS

var reportTemplate = template.Must(template.ParseFS(reportFiles, "templates/report.html.tmpl"))

// reportView is everything the template shows, computed here so that the
// template only lays it out.
type reportView struct {
	Title    string
	Frames   int
	Levels   []levelCount
	Sessions []sessionView
	Methods  []string
}

type levelCount struct {
	Level string
	N     int
}

// sessionView is one session's timeline: its groups in the order they
// started. The frames outside any session (initialize, frames that are not
// messages) form the "connection" timeline.
type sessionView struct {
	ID     string
	Label  string
	Groups []*groupView
}

// groupView is one request with what belongs to it (for a prompt: its
// updates, the agent's requests during it and the cancel), and its answer;
// or one frame that belongs to no request.
type groupView struct {
	Title     string
	Latency   string // "" until answered
	Cancelled bool
	Findings  int
	// FindingsLabel counts them in words ("1 finding").
	FindingsLabel string
	Rows          []rowView
}

type rowView struct {
	N         int // the frame's place in the trace, from 1
	Time      string
	Direction string
	Arrow     string
	Method    string
	Label     string
	Class     string
	Findings  []Finding
	Raw       string
}

// Report reads the trace file and writes its report to out (default: the
// trace's name with .html), atomically: a trace that does not read leaves
// nothing written.
func Report(trace, out string) error {
	f, err := os.Open(trace)
	if err != nil {
		return err
	}
	defer f.Close()
	recs, err := ReadTrace(f, trace)
	if err != nil {
		return err
	}
	if out == "" {
		out = strings.TrimSuffix(trace, filepath.Ext(trace)) + ".html"
	}
	var b bytes.Buffer
	if err := WriteReport(&b, "acpgen inspect: "+filepath.Base(trace), recs); err != nil {
		return err
	}
	return atomicfile.Write(out, b.Bytes(), 0o644)
}

// WriteReport writes the HTML report of a trace's records.
func WriteReport(w io.Writer, title string, recs []Record) error {
	return reportTemplate.Execute(w, buildView(title, recs))
}

func buildView(title string, recs []Record) reportView {
	b := &viewBuilder{sessions: map[string]*sessionView{}, open: map[string]*groupView{}, turn: map[string]*groupView{}}
	levels := map[string]int{}
	methods := map[string]bool{}
	var start Record
	if len(recs) > 0 {
		start = recs[0]
	}
	for i, r := range recs {
		for _, f := range r.Findings {
			levels[string(f.Level)]++
		}
		if r.Method != "" {
			methods[r.Method] = true
		}
		b.add(row(i+1, r, start), r)
	}
	v := reportView{Title: title, Frames: len(recs), Methods: sortedKeys(methods)}
	for _, l := range []string{"MUST", "SHOULD", "INFO"} {
		v.Levels = append(v.Levels, levelCount{l, levels[l]})
	}
	for _, id := range b.order {
		v.Sessions = append(v.Sessions, *b.sessions[id])
	}
	return v
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// row is one frame's line in the timeline.
func row(n int, r Record, start Record) rowView {
	v := rowView{N: n, Time: fmt.Sprintf("+%.3fs", r.Time.Sub(start.Time).Seconds()), Direction: string(r.Direction),
		Method: r.Method, Findings: r.Findings, Raw: pretty(r)}
	v.Arrow = "→ agent"
	if r.Direction == ToClient {
		v.Arrow = "← agent"
	}
	v.Class = r.Kind
	switch {
	case r.Kind == "response":
		v.Label = "answer " + string(r.ID) + " (" + r.Method + ")"
	case r.Kind == "request":
		v.Label = r.Method + " #" + string(r.ID)
	case r.Update != "":
		v.Label, v.Class = r.Method+": "+r.Update, "update"
	case r.Kind == "notification":
		v.Label = r.Method
	default:
		v.Label = "not a message"
	}
	if r.Method == "session/cancel" {
		v.Class = "cancel"
	}
	if len(r.Findings) > 0 {
		v.Class += " finding"
	}
	return v
}

// pretty is the frame indented when it is JSON, else as it was written,
// with what the trace left out of it.
func pretty(r Record) string {
	raw := r.Bytes()
	var note string
	if r.RawSize > 0 {
		note += fmt.Sprintf("(the first %d bytes of a frame of %d bytes)\n", len(raw), r.RawSize)
	}
	if r.FindingsOmitted > 0 {
		note += fmt.Sprintf("(%d more findings, on stderr only)\n", r.FindingsOmitted)
	}
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") == nil {
		return note + b.String()
	}
	if r.RawBase64 != nil {
		return note + fmt.Sprintf("(not UTF-8) %q", raw)
	}
	return note + string(raw)
}

// viewBuilder puts each frame in its session's timeline, in the group of
// the request it belongs to.
type viewBuilder struct {
	sessions map[string]*sessionView
	order    []string
	open     map[string]*groupView // requests not answered yet, by direction and id
	turn     map[string]*groupView // each session's request in progress (prompt, load)
}

func (b *viewBuilder) session(id string) *sessionView {
	s, ok := b.sessions[id]
	if !ok {
		s = &sessionView{ID: id, Label: "session " + id}
		if id == "" {
			s.Label = "connection"
		}
		b.sessions[id] = s
		b.order = append(b.order, id)
	}
	return s
}

func (b *viewBuilder) add(v rowView, r Record) {
	key := func(dir Direction) string { return string(dir) + " " + string(r.ID) }
	s := b.session(r.Session)
	var g *groupView
	switch {
	case r.Kind == "response":
		g = b.open[key(other(r.Direction))]
		delete(b.open, key(other(r.Direction)))
		if g != nil {
			g.Latency = fmt.Sprintf("%.1f ms", r.LatencyMS)
			if b.turn[r.Session] == g {
				delete(b.turn, r.Session)
			}
		}
	case r.Kind == "request" && r.Direction == ToAgent:
		g = &groupView{Title: r.Method}
		s.Groups = append(s.Groups, g)
		b.open[key(r.Direction)] = g
		if r.Session != "" {
			b.turn[r.Session] = g
		}
	default:
		g = b.turn[r.Session]
		if r.Session == "" {
			g = nil
		}
		if g != nil && r.Kind == "request" {
			b.open[key(r.Direction)] = g
		}
	}
	if g == nil {
		g = &groupView{Title: v.Label}
		s.Groups = append(s.Groups, g)
	}
	if r.Method == "session/cancel" {
		g.Cancelled = true
	}
	g.Findings += len(r.Findings)
	g.FindingsLabel = fmt.Sprintf("%d findings", g.Findings)
	if g.Findings == 1 {
		g.FindingsLabel = "1 finding"
	}
	g.Rows = append(g.Rows, v)
}
