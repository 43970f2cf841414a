package main

import (
	"bytes"
	"strings"
	"testing"
)

const netRunText = `netload: go1.26 linux/amd64, 2 CPUs, T
args: -ws 8 -http 8 -profile /tmp/a

== resumable log off (RetainMessages -1)
flood median cpu/update      stdio=3µs websocket=5.7µs (1.90x stdio) streamable-http=9.3µs (3.10x stdio)

== resumable log on (RetainMessages 0)
flood median cpu/update      stdio=2µs websocket=3µs (1.50x stdio) streamable-http=4µs (2.00x stdio)
load average at the end: 1 1 1
`

// A flood row is judged on both settings: Streamable HTTP at 3.1× stdio
// with the log off misses the target although the log-on side meets it.
func TestNetFloodRowJudgesBothSettings(t *testing.T) {
	runs, err := parseNetload("x.txt", []byte(netRunText))
	if err != nil {
		t.Fatal(err)
	}
	if got := runs[0].sets["off"]["flood median cpu/update"]["streamable-http"]; got != 9.3 {
		t.Errorf("streamable-http = %v µs, want 9.3", got)
	}
	var b bytes.Buffer
	netTable(&b, "x.txt", "here", runs)
	row := lineWith(t, b.String(), "run 1")
	if !strings.Contains(row, "9.30 (3.10×)") || !strings.Contains(row, "**missed**") {
		t.Errorf("flood row %q: want 9.30 (3.10×) and missed", row)
	}
	if !strings.Contains(b.String(), "`go run ./bench/netload -ws 8 -http 8`") {
		t.Errorf("command row lacks the command without -profile:\n%s", b.String())
	}
}

// Runs of different commands in one file are not one measurement.
func TestNetRunsOfDifferentCommandsRefused(t *testing.T) {
	two := netRunText + strings.Replace(netRunText, "-ws 8", "-ws 9", 1)
	if _, err := parseNetload("x.txt", []byte(two)); err == nil || !strings.Contains(err.Error(), "x.txt: runs of different commands") {
		t.Errorf("err = %v", err)
	}
}

func lineWith(t *testing.T, s, sub string) string {
	for l := range strings.Lines(s) {
		if strings.Contains(l, sub) {
			return l
		}
	}
	t.Fatalf("no line with %q in:\n%s", sub, s)
	return ""
}

// A line outside a setting's section (a stray log line starting a new run)
// is an error naming the file, not a panic.
func TestNetStrayLineRefused(t *testing.T) {
	stray := strings.Replace(netRunText, "flood median", "netload: server pid 1\nflood median", 1)
	if _, err := parseNetload("x.txt", []byte(stray)); err == nil || !strings.Contains(err.Error(), "x.txt: unexpected line") {
		t.Errorf("err = %v", err)
	}
}
