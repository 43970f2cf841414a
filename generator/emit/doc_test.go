package emit

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dave/jennifer/jen"
)

// Description text becomes ordinary // doc comments: paragraphs reflowed
// and wrapped, lists as go doc lists, nothing indented as code, no /* */.
func TestDescriptionAsDocComment(t *testing.T) {
	desc := "Notification sent when\n    a file changes.\n\n" +
		"## Details\n\n" +
		"- first item that is long enough to need wrapping because it goes on and on and on past the width\n" +
		"- second\n\n" +
		"```json\n{\"a\": 1}\n```\n"
	f := jen.NewFile("x")
	f.Add(comment("T is an object.\n\n" + description(desc)))
	f.Type().Id("T").Struct()
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	if strings.Contains(got, "/*") {
		t.Fatalf("block comment:\n%s", got)
	}
	for _, line := range strings.Split(got, "\n") {
		if !strings.HasPrefix(line, "//") {
			continue
		}
		if len(line) > docWidth+10 {
			t.Errorf("line not wrapped: %q", line)
		}
		if strings.HasPrefix(line, "//\t") {
			t.Errorf("indented as code: %q", line)
		}
	}
	for _, want := range []string{
		"// Notification sent when a file changes.\n//\n// Details\n//\n",
		"//   - first item that is long enough",
		"//   - second",
		"// {\"a\": 1}",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}
