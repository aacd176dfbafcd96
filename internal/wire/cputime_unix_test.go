//go:build unix

package wire

import "syscall"

// cpuNanos is the CPU time this process has used. On a shared machine the
// benchmarks' wall-clock ns/op counts time spent waiting for a core; the
// cpu-ns/op metric built on this does not.
func cpuNanos() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
