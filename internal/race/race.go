//go:build race

// Package race reports whether the race detector is built in, so that
// allocation tests can skip themselves under -race (which allocates).
package race

// Enabled is true when the binary is built with -race.
const Enabled = true
