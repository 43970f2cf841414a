// Package golden holds the expected Go that acpgen generates from small base
// schemas (testdata/base.json) with the repository's overlays applied: one
// package per case, committed, compiled, and tested by hand-written behaviour
// tests beside the generated files.
//
// go test ./golden compares a fresh generation with the committed files and
// shows a unified diff of any difference; go test ./golden -update rewrites
// them.
package golden
