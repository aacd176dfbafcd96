//go:build linux

package main

import "golang.org/x/sys/unix"

// threadCPU is the CPU time the calling thread has used (lock it to its
// goroutine first): on a shared machine, wall time counts the waits for a
// core and this does not.
func threadCPU() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return ts.Nano()
}
