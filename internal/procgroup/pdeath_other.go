//go:build unix && !linux

package procgroup

import "syscall"

// setParentDeath does nothing: only Linux has a parent-death signal. A
// child of a killed parent sees its stdin end instead.
func setParentDeath(*syscall.SysProcAttr) {}
