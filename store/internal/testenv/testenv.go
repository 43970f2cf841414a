// Package testenv is what the store's tests need from the machine: a
// throwaway PostgreSQL cluster (Debian's postgresql package, run as an
// unprivileged user since initdb and postgres refuse root) and commands run
// as such a user.
package testenv

import (
	"os"
	"testing"
)

// Missing fails the test when an engine the test needs is missing under
// CI=true (test.sh installs it), and skips it otherwise.
func Missing(t testing.TB, what string, err error) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s: %v (test.sh installs it; under CI=true a missing engine fails)", what, err)
	}
	t.Skipf("%s: %v", what, err)
}
