package templates

import (
	"slices"
	"strings"
	"testing"
)

func TestRender(t *testing.T) {
	for _, kind := range Kinds() {
		files, err := Render(kind, Data{Name: "x", Import: "example.com/acp", Module: "example.com/x", GoVersion: "1.26.0"})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for name := range files {
			names = append(names, name)
		}
		slices.Sort(names)
		want := []string{".gitignore", kind + ".go", kind + "_test.go", "go.mod", "main.go"}
		if slices.Sort(want); !slices.Equal(names, want) {
			t.Errorf("%s: files %v, want %v", kind, names, want)
		}
		// The printed build step writes the binary into BinDir, ignored.
		if !strings.Contains(string(files[".gitignore"]), "\n/"+BinDir+"/\n") {
			t.Errorf("%s: .gitignore does not ignore %s/:\n%s", kind, BinDir, files[".gitignore"])
		}
		if !strings.Contains(string(files[kind+".go"]), `acp "example.com/acp"`) {
			t.Errorf("%s: %s.go does not import the package:\n%s", kind, kind, files[kind+".go"])
		}
		// Without a module path the starter joins an existing module.
		files, _ = Render(kind, Data{Name: "x", Import: "example.com/acp"})
		if _, ok := files["go.mod"]; ok {
			t.Errorf("%s: go.mod written without a module path", kind)
		}
	}
	if _, err := Render("conductor", Data{Name: "x", Import: "example.com/acp"}); err == nil {
		t.Error("unknown kind rendered")
	}
}
