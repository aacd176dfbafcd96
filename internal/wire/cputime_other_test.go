//go:build !unix

package wire

// cpuNanos is unavailable here; the cpu-ns/op metric reads 0.
func cpuNanos() int64 { return 0 }
