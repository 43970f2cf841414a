package cputime

import (
	"runtime"
	"testing"
)

// TestNowAdvances: CPU spent between two readings shows in them.
func TestNowAdvances(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no rusage here")
	}
	start := Now()
	x := 0
	for i := range 50_000_000 {
		x ^= i * i
	}
	if Now() <= start {
		t.Errorf("CPU time did not advance over a busy loop (%d)", x)
	}
}
