//go:build race

package acphttp

// raceEnabled: the race detector multiplies memory and time, so the memory
// tests skip under it.
const raceEnabled = true
