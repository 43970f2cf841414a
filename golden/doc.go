// Package golden holds acpgen's golden tests of the overlays, on a small
// hand-written base schema (testdata/base.json). For each overlay,
// testdata/<overlay>/ holds its golden, golden.go (what the overlay changes
// in the generated Go; not compiled), and behaviour_test.go (hand-written
// tests of the generated package). testdata/negative/ holds overlays that
// must fail.
//
// go test ./golden compares the goldens with a fresh generation and shows a
// unified diff of any difference; go test ./golden -update rewrites them.
// It also generates each whole package into a temporary folder and runs go
// vet and go test on it with its behaviour tests. The package comment of
// golden_test.go says how.
package golden
