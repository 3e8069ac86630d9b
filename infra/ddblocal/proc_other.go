//go:build unix && !linux

package ddblocal

import "syscall"

// sysProcAttr puts the JVM in its own process group, so Stop can kill it with any children.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
