package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestOverlayStatus(t *testing.T) {
	rfd := func(name string) string { return filepath.Join("..", "..", "overlays", name) }
	out, err := run(t, "overlay", "status", "--config", configFile(t), "--schema-dir", schemaCopy(t, false), rfd("additional-directories.json"), rfd("runtime-context.json"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{
		"schema.json\n", "schema.unstable.json\n",
		"  additional-directories: Additional Workspace Roots for Session Lifecycle Requests (draft RFD)",
		"upstream   capability sessionCapabilities.additionalDirectories",
		"added      session/list filter additionalDirectories",
		"tightened  SessionInfo.additionalDirectories",
		"skipped    additionalDirectories on the session lifecycle requests (ForkSessionRequest)",
		"added  runtimeContext on session/prompt",
		"=> still needed: 1 added, 9 tightened",
		"=> still needed: 1 added, 11 tightened",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	// A conflict is reported in full and fails the command.
	base := filepath.Join("..", "..", "golden", "testdata", "base.json")
	out, err = run(t, "overlay", "status", "--schema", base, filepath.Join("..", "..", "golden", "testdata", "negative", "conflict.json"))
	if err != errConflicts || !strings.Contains(out, "conflict  additionalDirectories as one string") || !strings.Contains(out, "=> still needed: 1 conflict") {
		t.Errorf("conflict: %v\n%s", err, out)
	}

	// An overlay whose changes are all upstream can be retired.
	out, err = run(t, "overlay", "status", "--schema", base, filepath.Join("testdata", "upstream-only.json"))
	if err != nil || !strings.Contains(out, "=> retirable: every change is upstream") {
		t.Errorf("retirable: %v\n%s", err, out)
	}
}

// TestOverlayStatusReadsConfiguration: without arguments, each configured
// channel's overlays are checked against that channel's pinned schema.
func TestOverlayStatusReadsConfiguration(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	out, err := run(t, "overlay", "status")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{
		filepath.Join("@agentclientprotocol", "sdk@2.4.0", "schema.json") + "\n",
		filepath.Join("@agentclientprotocol", "sdk@2.4.0", "schema.unstable.json") + "\n",
		"  additional-directories: ", "  runtime-context: ",
	} {
		if strings.Count(out, want) < 1 {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "  runtime-context: ") != 2 {
		t.Errorf("want runtime-context reported for both channels:\n%s", out)
	}
}
