package main

import (
	"os"
	"strings"
	"testing"
)

// The HAProxy configuration docs/sessions.md shows is the one the fleet
// test runs.
func TestHAProxyConfigDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/sessions.md")
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := os.ReadFile("haproxy.cfg.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(doc), "```haproxy\n")
	if block, _, _ = strings.Cut(block, "```"); !ok || block != string(tmpl) {
		t.Errorf("docs/sessions.md's haproxy block differs from haproxy.cfg.tmpl:\n%s", block)
	}
}
