//go:build !unix

package bench

import "os"

// peakRSSKiB reports 0 where the process state carries no resident-set figure.
func peakRSSKiB(*os.ProcessState) int64 { return 0 }
