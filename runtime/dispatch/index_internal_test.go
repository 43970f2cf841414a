package dispatch

import "testing"

// TestRoutesIndex: every method is found at its number (the last of equal
// names, as a map keeps it), and names a side does not handle are not,
// however close to one it does.
func TestRoutesIndex(t *testing.T) {
	names := []string{"initialize", "authenticate", "logout", "session/new", "session/load", "session/list",
		"session/resume", "session/fork", "session/close", "session/prompt", "session/cancel", "session/set_mode",
		"session/set_model", "session/set_config_option", "session/update", "session/request_permission",
		"fs/read_text_file", "fs/write_text_file", "terminal/create", "terminal/output", "terminal/release",
		"terminal/wait_for_exit", "terminal/kill", "$/cancel_request", "a", "b", "ab", "ba", "session/prompt"}
	r := &Routes{}
	for _, n := range names {
		r.Methods = append(r.Methods, Handled{Method: &Method{Wire: n}})
	}
	for i, n := range names {
		want := i
		if n == "session/prompt" {
			want = len(names) - 1
		}
		if got, ok := r.index(n); !ok || got != want {
			t.Errorf("index(%q) = %d, %v; want %d", n, got, ok, want)
		}
		for _, other := range []string{n + "x", n[:len(n)-1], "x" + n, n[:len(n)-1] + "_"} {
			if got, ok := r.index(other); ok && r.Methods[got].Method.Wire != other {
				t.Errorf("index(%q) = %d (%q)", other, got, r.Methods[got].Method.Wire)
			}
		}
	}
	for _, n := range []string{"", "session/promp", "session/prompt ", "Session/prompt", "x"} {
		if got, ok := r.index(n); ok {
			t.Errorf("index(%q) = %d, want none", n, got)
		}
	}
	if _, ok := (&Routes{}).index("initialize"); ok {
		t.Error("an empty table found a method")
	}
}
