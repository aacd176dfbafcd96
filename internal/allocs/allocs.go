// Package allocs counts heap allocations over whole runs of a function,
// for the zero-allocation tests.
//
// testing.AllocsPerRun returns the total divided by the runs in integers,
// so a function that allocates on fewer than all of its runs (a slice
// that grows now and then, a map that rehashes) reads 0. Total returns the
// sum instead: zero means no run allocated.
//
// Like AllocsPerRun, it counts every goroutine's allocations, so use it
// where nothing else runs meanwhile (no transport goroutines), and skip
// it under -race (internal/race), which allocates.
package allocs

import "runtime"

// Total runs f once to warm up, then runs more times with GOMAXPROCS set
// to 1, and returns the number of heap allocations made in those runs
// together.
func Total(runs int, f func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs
}
