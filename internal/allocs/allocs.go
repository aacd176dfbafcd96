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
// Like AllocsPerRun, they count every goroutine's allocations, so use
// them where nothing else runs meanwhile (no transport goroutines), and
// skip them under -race (internal/race), which allocates. RequireZero
// leaves out what the runtime allocates for itself (its background
// goroutines, its lazily filled type caches), which would fail a long
// run now and then for nothing f did.
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
// if f allocated in runs runs (after one to warm up). The runs are
// counted with the memory profile recording every allocation, so the
// failure says how many allocations the runs made, what (msgAndArgs, as
// for require: a format and its arguments) was measured, and where each
// happened, in those very runs: a rare allocation is named too.
//
// It counts every goroutine's allocations, as Total does, but two kinds
// that are the runtime's and not f's: the runtime's own goroutines (the
// scavenger growing its timer heap, the collector's workers), and the
// runtime's type-assertion and type-switch caches, which it fills lazily
// (on one miss in 1,024, so a warm-up does not fill them) and which stop
// growing once every type a site sees is in them. Those are logged.
func RequireZero(t testing.TB, runs int, f func(), msgAndArgs ...any) {
	t.Helper()
	requireZero(t, runs, f, false, msgAndArgs)
}

// RequireZeroHere is RequireZero counting only what f allocates on the
// goroutine that calls it: for an f that does all its work there while
// other goroutines of the process allocate on their own (a library's
// timers, what an earlier test left closing). What runs on other
// goroutines is logged, not counted, so an f that hands its work to one
// must use RequireZero.
func RequireZeroHere(t testing.TB, runs int, f func(), msgAndArgs ...any) {
	t.Helper()
	requireZero(t, runs, f, true, msgAndArgs)
}

func requireZero(t testing.TB, runs int, f func(), here bool, msgAndArgs []any) {
	t.Helper()
	if race.Enabled {
		t.Skip("allocation counts are meaningless under -race, which allocates")
	}
	c := measure(runs, f)
	if c.runtime > 0 {
		t.Logf("%d allocations by the runtime itself, not counted:\n%s", c.runtime, list(c.runtimeSites))
	}
	// The profile names every allocation (its rate is 1), so it decides;
	// the count only stands in when the profile holds none at all. The
	// two windows differ a little at their ends (the runtime's scavenger
	// wakes after the profile's collections), so they are not subtracted.
	sites := c.sites
	if here {
		sites = c.here
		if others := len(c.sites) - len(c.here); others > 0 {
			t.Logf("allocations on other goroutines, not counted:\n%s", list(c.sites))
		}
	}
	var n uint64
	for _, d := range sites {
		n += uint64(d)
	}
	if n == 0 && c.runtime == 0 && !here {
		n = c.total
	}
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
	where := list(sites)
	if len(sites) == 0 {
		where = "\t(none in the profile: it lags the count)\n"
	}
	t.Fatalf("%s: %d heap allocations in %d runs, want 0; allocated in:\n%s", what, n, runs, where)
}

// count is what measure saw: the allocations in the runs (every
// goroutine's), those of them that were the runtime's own, and the
// allocating sites of each kind with their counts.
type count struct {
	total, runtime            uint64
	sites, here, runtimeSites map[string]int64 // here: f's goroutine's, of sites
}

// measure runs f once to warm up, then runs times more with GOMAXPROCS
// set to 1 and every allocation profiled, and sorts the allocations the
// runs made by where they happened.
//
//go:noinline
func measure(runs int, f func()) count {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
	runtime.MemProfileRate = 1
	f()
	before := profile()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&m1)
	after := profile()
	c := count{total: m1.Mallocs - m0.Mallocs, sites: map[string]int64{}, here: map[string]int64{}, runtimeSites: map[string]int64{}}
	for s, n := range after {
		d := n - before[s]
		if d <= 0 {
			continue
		}
		if s.runtime {
			c.runtimeSites[s.name] += d
			c.runtime += uint64(d)
		} else {
			c.sites[s.name] += d
			if s.here {
				c.here[s.name] += d
			}
		}
	}
	return c
}

// list renders counts by site, most first.
func list(counts map[string]int64) string {
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

// key is an allocating site: the first frame outside the runtime (or,
// for the runtime's own, the runtime function that allocated), and
// whether the allocation was the runtime's own.
type key struct {
	name    string
	runtime bool
	here    bool // on measure's goroutine
}

// profile returns the allocations the memory profile has recorded so
// far, by allocating site. Two collections publish what the last cycle
// saw (the profile lags a cycle behind).
func profile() map[key]int64 {
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
	out := map[key]int64{}
	for i := range recs {
		if k, ok := site(recs[i].Stack()); ok {
			out[k] += recs[i].AllocObjects
		}
	}
	return out
}

// site names the allocation stk ends in, unless it is profile's own.
// Runtime work is the runtime's own: a stack of runtime frames alone
// (one of the runtime's goroutines), or one through the runtime's lazy
// type-assertion and type-switch caches.
func site(stk []uintptr) (key, bool) {
	frames := runtime.CallersFrames(stk)
	first, last, name, here := "", "", "", false
	for {
		fr, more := frames.Next()
		fn := fr.Function
		switch {
		case strings.HasSuffix(fn, "internal/allocs.profile"):
			return key{}, false
		case fn == "runtime.buildTypeAssertCache" || fn == "runtime.buildInterfaceSwitchCache":
			return key{name: fn, runtime: true}, true
		case first == "" && fn != "runtime.mallocgc" && !strings.HasPrefix(fn, "runtime.malloc"):
			first = fn
		}
		if strings.HasSuffix(fn, "internal/allocs.measure") {
			here = true
		}
		if fn != "runtime.goexit" {
			last = fn
		}
		if name == "" && fn != "" && !strings.HasPrefix(fn, "runtime.") && !strings.HasPrefix(fn, "internal/runtime/") {
			name = fmt.Sprintf("%s (%s:%d)", fn, fr.File, fr.Line)
		}
		if !more {
			break
		}
	}
	if name == "" {
		return key{name: first + " in " + last, runtime: true}, true
	}
	return key{name: name, here: here}, true
}
