package main

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMalformedInput runs the built command on bad generator inputs (a small
// ACP-shaped base in testdata/malformed, one defect per case): each must exit
// 1 with a single stderr line naming the offending file and JSON pointer, and
// leave the output folder exactly as it was. Two legitimate shapes that look
// alike (a recursive object type; one wire name that is both a request and a
// notification) must generate.
func TestMalformedInput(t *testing.T) {
	bin := acpgenBinary(t)
	td, err := filepath.Abs(filepath.Join("testdata", "malformed"))
	if err != nil {
		t.Fatal(err)
	}
	dir := func(name string) string { return filepath.Join(td, name) }
	cfg := filepath.Join(t.TempDir(), "acpgen.json")
	if err := os.WriteFile(cfg, []byte(`{"channels": [{"name": "stable", "out": "gen/acp", "importPath": "example.com/acp"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ov := func(name string) string { return filepath.Join(td, "overlays", name+".json") }

	cases := []struct {
		name     string
		schema   string   // case folder holding schema.json (and maybe meta.json)
		overlays []string // applied in order
		root     func(t *testing.T) string
		want     []string // substrings of the one error line; empty: must succeed
	}{
		{name: "invalid JSON", schema: "invalid-json",
			want: []string{"invalid-json/schema.json#:", "invalid JSON"}},
		{name: "truncated JSON", schema: "truncated-json",
			want: []string{"truncated-json/schema.json#:", "invalid JSON: line 10, column 26:", "truncated"}},
		{name: "member named validate gets a qualified name", schema: "member-named-validate"},
		{name: "member named AppendJSON gets a qualified name", schema: "member-named-appendjson"},
		{name: "def named AgentConn gets a qualified name", schema: "def-named-agentconn"},
		{name: "def named MethodInitialize gets a qualified name", schema: "def-named-methodinitialize"},
		{name: "def named UnimplementedAgentHandler gets a qualified name", schema: "def-named-unimplementedagenthandler"},
		{name: "cycle through required members", schema: "required-cycle",
			want: []string{"required-cycle/schema.json#/$defs/Outer:", `Outer member "inner" -> Inner member "outer" -> Outer`, "make one of these members optional"}},
		{name: "dangling $ref", schema: "dangling-ref",
			want: []string{"dangling-ref/schema.json#/$defs/CancelNotification/properties/sessionId/$ref:", `dangling reference "#/$defs/Missing"`}},
		{name: "$ref cycle with no object in between", schema: "ref-cycle",
			want: []string{"ref-cycle/schema.json#/$defs/A:", "$ref cycle"}},
		{name: "recursive object type is legitimate", schema: "recursive-object"},
		{name: "unknown keyword", schema: "unknown-keyword",
			want: []string{"unknown-keyword/schema.json#/$defs/CancelNotification/properties/sessionId/if:", `unknown keyword "if"`}},
		{name: "method defined twice for one side and kind", schema: "method-twice",
			want: []string{"method-twice/schema.json#/$defs/CancelNotification2:", `"session/cancel" is defined twice as a notification`}},
		{name: "one wire name as request and notification is legitimate", schema: "request-and-notification"},
		{name: "initialize as both request and notification is legitimate", schema: "initialize-notification"},
		{name: "$ref cycle through a union", schema: "union-cycle",
			want: []string{"union-cycle/schema.json#/$defs/A:", "variant A of A has no single JSON type"}},
		{name: "meta file disagrees with x-method", schema: "meta-mismatch",
			want: []string{"meta-mismatch/meta.json#/agentMethods:", `"session/new"`}},
		{name: "response x-method differs from its request", schema: "response-method-mismatch",
			want: []string{"response-method-mismatch/schema.json#/$defs/InitializeResponse:", "answers no request"}},
		{name: "two defs with one Go name", schema: "go-name-clash",
			want: []string{"go-name-clash/schema.json#/$defs/Session_Id:", "Go name SessionID", "#/$defs/SessionId"}},
		{name: "overlay target missing", schema: "base", overlays: []string{ov("missing-target")},
			want: []string{"overlays/missing-target.json#/changes/0:", "NoSuchRequest does not exist"}},
		{name: "conflicting overlays", schema: "base", overlays: []string{ov("priority-int"), ov("priority-string")},
			want: []string{"overlays/priority-string.json#/changes/0", "#/$defs/CancelNotification/properties/priority", `overlay "priority-int" already changed it differently`}},
		{name: "schema-invalid overlay", schema: "base", overlays: []string{ov("schema-invalid")},
			want: []string{"overlays/schema-invalid.json#/changes/0:", "name is required"}},
		{name: "output folder is a file", schema: "base",
			root: func(t *testing.T) string {
				f := filepath.Join(t.TempDir(), "root")
				if err := os.WriteFile(f, []byte("not a folder\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return f
			},
			want: []string{"nothing written", "root/gen/acp/", "not a directory"}},
		{name: "output subfolder is a file", schema: "base",
			root: func(t *testing.T) string {
				r := t.TempDir()
				if err := os.WriteFile(filepath.Join(r, "gen"), []byte("in the way\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return r
			},
			want: []string{"nothing written", "/gen/acp/", "not a directory"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var root string
			if c.root != nil {
				root = c.root(t)
			} else {
				// A folder with earlier content: a failed run must not touch it.
				root = t.TempDir()
				os.MkdirAll(filepath.Join(root, "gen", "acp"), 0o755)
				os.WriteFile(filepath.Join(root, "gen", "acp", "mine.go"), []byte("package acp\n"), 0o644)
			}
			before := snapshot(t, root)
			args := []string{"generate", "--config", cfg, "--schema-dir", dir(c.schema), "--root", root, "-q"}
			for _, o := range c.overlays {
				args = append(args, "--overlay", o)
			}
			cmd := exec.Command(bin, args...)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if len(c.want) == 0 {
				if err != nil {
					t.Fatalf("want success, got %v\n%s", err, stderr.String())
				}
				if _, err := os.Stat(filepath.Join(root, "gen", "acp", "types.go")); err != nil {
					t.Fatalf("nothing generated: %v", err)
				}
				return
			}
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
				t.Fatalf("exit: %v, want status 1\n%s", err, stderr.String())
			}
			msg := strings.TrimSuffix(stderr.String(), "\n")
			if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "acpgen: ") {
				t.Fatalf("want one line \"acpgen: ...\" on stderr, got:\n%.2000s", msg)
			}
			// Paths are printed as given; compare with slashes.
			msg = filepath.ToSlash(msg)
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error line lacks %q:\n%s", w, msg)
				}
			}
			if stdout.Len() > 0 {
				t.Errorf("stdout not empty: %q", stdout.String())
			}
			if after := snapshot(t, root); !maps.Equal(before, after) {
				t.Errorf("the output changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// snapshot maps every path under root (folders too, so that a created empty
// folder counts as a write) to its content; a root that is a file maps to itself.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			out[p+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
