// Package jsonpointer escapes and unescapes the reference tokens of RFC 6901
// JSON pointers: the one copy shared by the runtime, the generator and the
// test helpers. It lives under runtime/ because the runtime packages that
// generated code imports (wire, jsonrpc) may import only the standard library
// and each other (generated code is type-checked against them alone; acphttp,
// which generated code does not import, also uses coder/websocket); it
// imports only the standard library, so the generator can use it without
// depending on the wire codec. It also reads
// the paths that name capabilities (SplitPath): one parser for the
// generator, conform and the test helpers.
package jsonpointer

import (
	"fmt"
	"slices"
	"strings"
)

var (
	escaper   = strings.NewReplacer("~", "~0", "/", "~1")
	unescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// Escape makes s one reference token: "~" becomes "~0" and "/" becomes "~1".
// A token with neither is returned as is, without allocating.
func Escape(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return escaper.Replace(s)
}

// Unescape reverses Escape. "~01" is "~1", not "/": the replacer scans left to
// right once, so an unescaped "~" never combines with the next character.
func Unescape(s string) string {
	if !strings.Contains(s, "~") {
		return s
	}
	return unescaper.Replace(s)
}

// Parse splits an RFC 6901 pointer into its unescaped reference tokens: ""
// (the whole document) has none. A pointer must start with "/", and a "~"
// must be followed by "0" or "1".
func Parse(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if p[0] != '/' {
		return nil, fmt.Errorf("JSON pointer %q does not start with /", p)
	}
	toks := strings.Split(p[1:], "/")
	for i, t := range toks {
		for j := strings.IndexByte(t, '~'); j >= 0; j = next(t, j) {
			if j+1 == len(t) || (t[j+1] != '0' && t[j+1] != '1') {
				return nil, fmt.Errorf("JSON pointer %q: token %q has a ~ that is not ~0 or ~1", p, t)
			}
		}
		toks[i] = Unescape(t)
	}
	return toks, nil
}

// next returns the index of the next "~" in t after the escape at j, or -1.
func next(t string, j int) int {
	k := strings.IndexByte(t[j+1:], '~')
	if k < 0 {
		return -1
	}
	return j + 1 + k
}

// SplitPath splits a member path written either as a JSON pointer (it
// starts with "/") or dotted ("a.b.c"), the short form for paths whose
// tokens hold no ".". Every token must be non-empty.
func SplitPath(path string) ([]string, error) {
	var toks []string
	if strings.HasPrefix(path, "/") {
		var err error
		if toks, err = Parse(path); err != nil {
			return nil, err
		}
	} else {
		toks = strings.Split(path, ".")
	}
	if slices.Contains(toks, "") {
		return nil, fmt.Errorf("path %q has an empty token", path)
	}
	return toks, nil
}

// FormatPath writes tokens in the form SplitPath reads: dotted when no token
// holds ".", "/" or "~" (those are unambiguous and read as before), else
// the JSON pointer.
func FormatPath(toks []string) string {
	if !slices.ContainsFunc(toks, func(t string) bool { return strings.ContainsAny(t, "./~") }) {
		return strings.Join(toks, ".")
	}
	var b strings.Builder
	for _, t := range toks {
		b.WriteString("/" + Escape(t))
	}
	return b.String()
}
