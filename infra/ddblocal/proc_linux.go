package ddblocal

import "syscall"

// sysProcAttr puts the JVM in its own process group, so Stop can kill it with any children, and
// has the kernel kill it if the Go process dies first (a test binary that times out or panics
// never reaches Stop).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
