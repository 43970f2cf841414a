package store

import "syscall"

// limitFileSize makes writes past n bytes of any file fail (EFBIG; Go
// ignores SIGXFSZ), as a full disk makes them fail.
func limitFileSize(n uint64) error {
	return syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n})
}
