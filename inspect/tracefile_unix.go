//go:build unix

package inspect

import (
	"errors"
	"syscall"
)

// openNoFollow makes opening a symbolic link fail (ELOOP), and opening a
// FIFO without a reader fail instead of blocking (ENXIO); neither flag
// changes how a regular file is written.
const openNoFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

func isLinkLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }
