//go:build unix

package roots

import "syscall"

// openNoBlock makes opening a FIFO return at once, and keeps a terminal
// opened by a swap from becoming the process's controlling terminal.
const openNoBlock = syscall.O_NONBLOCK | syscall.O_NOCTTY
