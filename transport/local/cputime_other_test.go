//go:build !unix

package local_test

// cpuNanos is unavailable here; the cpu-ns/op metric is not reported.
func cpuNanos() int64 { return 0 }
