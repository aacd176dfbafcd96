//go:build !unix

package codec

// cpuNanos is unavailable here; the cpu-ns/op metric reads 0.
func cpuNanos() int64 { return 0 }
