// Package cputime reads the CPU time the process has used, for benchmarks
// that report CPU per operation beside wall time: on a shared machine wall
// time scatters with the neighbours' load, CPU time much less.
package cputime

// Now is the user and system CPU time of the process so far, in
// nanoseconds; 0 where the platform does not say.
func Now() int64 { return now() }
