//go:build !linux

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "netload: runs on Linux only (it reads /proc and getrusage)")
	os.Exit(2)
}
