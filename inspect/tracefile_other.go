//go:build !unix

package inspect

// openNoFollow is empty where the platform has no O_NOFOLLOW: CreateTrace
// then relies on its check of the path before opening it.
const openNoFollow = 0

func isLinkLoop(error) bool { return false }
