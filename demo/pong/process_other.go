//go:build !linux

package main

import "os/exec"

// setParentDeath does nothing here: the opponent exits when its stdin,
// held by the parent, reaches EOF.
func setParentDeath(*exec.Cmd) {}
