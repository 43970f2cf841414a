// Package jsonpointer escapes and unescapes the reference tokens of RFC 6901
// JSON pointers: the one copy shared by the runtime, the generator and the
// test helpers. It lives under runtime/ because runtime packages may import
// only the standard library and each other (generated code is type-checked
// against them alone); it imports nothing but strings, so the generator can
// use it without depending on the wire codec.
package jsonpointer

import "strings"

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
