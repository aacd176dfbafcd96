//go:build !linux

package main

import "testing"

// BenchmarkHostPath measures the host path's floor where Linux's batched
// socket calls exist; elsewhere there is no floor to report.
func BenchmarkHostPath(b *testing.B) {
	b.Skip("the host path's floor is measured on Linux")
}

// hostPathClientsMain has no clients to run where BenchmarkHostPath
// skips.
func hostPathClientsMain() {}
