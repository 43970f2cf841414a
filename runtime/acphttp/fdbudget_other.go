//go:build !unix

package acphttp

// fdBudget stands for a file descriptor limit where sockets have none per
// process (Windows): the figure stream limits are derived from.
func fdBudget() int { return 16384 }
