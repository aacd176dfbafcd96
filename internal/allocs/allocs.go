// Package allocs counts heap allocations over whole runs of a function,
// for the zero-allocation tests.
//
// testing.AllocsPerRun returns the total divided by the runs in integers,
// so a function that allocates on fewer than all of its runs (a slice
// that grows now and then, a map that rehashes) reads 0. Total returns the
// sum instead: zero means no run allocated. RequireZero is the shape every
// zero-allocation test takes: skip under -race, warm up, count the total,
// and on failure name the functions that allocated.
//
// Like AllocsPerRun, it counts every goroutine's allocations, so use it
// where nothing else runs meanwhile (no transport goroutines), and skip
// it under -race (internal/race), which allocates.
package allocs

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rollnet/rollnet/internal/race"
)

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

// RequireZero skips t under -race (which allocates), then fails t now
// unless Total(runs, f) is zero. The failure says how many allocations
// the runs made, what (msgAndArgs, as for require: a format and its
// arguments) was measured, and where f allocated: f is run again, runs
// times, with every allocation profiled, and the allocating functions
// are listed, most allocations first.
func RequireZero(t testing.TB, runs int, f func(), msgAndArgs ...any) {
	t.Helper()
	if race.Enabled {
		t.Skip("allocation counts are meaningless under -race, which allocates")
	}
	n := Total(runs, f)
	if n == 0 {
		return
	}
	what := "f"
	if len(msgAndArgs) > 0 {
		if format, ok := msgAndArgs[0].(string); ok {
			what = fmt.Sprintf(format, msgAndArgs[1:]...)
		} else {
			what = fmt.Sprintf("%v", msgAndArgs[0])
		}
	}
	t.Fatalf("%s: %d heap allocations in %d runs, want 0; allocated in:\n%s", what, n, runs, sites(runs, f))
}

// sites runs f runs times with the memory profile recording every
// allocation and returns the allocating functions (the first frame
// outside the runtime), with counts, most first.
func sites(runs int, f func()) string {
	defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
	runtime.MemProfileRate = 1
	before := profile()
	for range runs {
		f()
	}
	after := profile()
	counts := map[string]int64{}
	for site, n := range after {
		if d := n - before[site]; d > 0 {
			counts[site] += d
		}
	}
	if len(counts) == 0 {
		return "\t(none on this goroutine in a second pass: another goroutine's, or a rare one that did not recur)\n"
	}
	names := make([]string, 0, len(counts))
	for s := range counts {
		names = append(names, s)
	}
	slices.SortFunc(names, func(a, b string) int {
		if c := int(counts[b] - counts[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	var b strings.Builder
	for _, s := range names {
		fmt.Fprintf(&b, "\t%d\t%s\n", counts[s], s)
	}
	return b.String()
}

// profile returns the allocations the memory profile has recorded so
// far, by allocating site. Two collections publish what the last cycle
// saw (the profile lags a cycle behind).
func profile() map[string]int64 {
	runtime.GC()
	runtime.GC()
	var recs []runtime.MemProfileRecord
	n, _ := runtime.MemProfile(nil, true)
	for {
		recs = make([]runtime.MemProfileRecord, n+50)
		var ok bool
		if n, ok = runtime.MemProfile(recs, true); ok {
			recs = recs[:n]
			break
		}
	}
	out := map[string]int64{}
	for i := range recs {
		if s, ok := site(recs[i].Stack()); ok {
			out[s] += recs[i].AllocObjects
		}
	}
	return out
}

// site names the first frame of stk outside the runtime, with its file
// and line, if stk is one of f's: it passes through sites, not through
// profile (whose own allocations are not f's). Allocations on other
// goroutines are not f's either, and are left out.
func site(stk []uintptr) (string, bool) {
	frames := runtime.CallersFrames(stk)
	name := ""
	for {
		fr, more := frames.Next()
		switch {
		case strings.HasSuffix(fr.Function, "internal/allocs.profile"):
			return "", false
		case strings.HasSuffix(fr.Function, "internal/allocs.sites"):
			return name, name != ""
		case name == "" && !strings.HasPrefix(fr.Function, "runtime."):
			name = fmt.Sprintf("%s (%s:%d)", fr.Function, fr.File, fr.Line)
		}
		if !more {
			return "", false
		}
	}
}
