package procgroup

import "syscall"

// setParentDeath asks for SIGKILL when the parent dies. Linux sends it
// when the thread that started the child ends; Go ends a thread only when
// a goroutine locked to it (runtime.LockOSThread) returns without
// unlocking, so a child started from any other goroutine gets it when its
// parent dies.
func setParentDeath(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
