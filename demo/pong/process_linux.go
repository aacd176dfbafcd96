package main

import (
	"os/exec"
	"syscall"
)

// setParentDeath asks the kernel to kill the opponent if the parent dies
// without closing its stdin (SIGKILL, say). Belt and braces: the opponent
// also exits when its stdin reaches EOF.
func setParentDeath(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
