//go:build !unix

package acphttp

import "testing"

// raiseFDLimit has nothing to raise where descriptors have no soft limit.
func raiseFDLimit(*testing.T, uint64) {}
