//go:build !race

package jsonrpc

// raceEnabled: the race detector multiplies memory and time, so the load
// tests skip under it.
const raceEnabled = false
