package allocs_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
)

var sink []byte

// An allocation on one run in ten is 0 to AllocsPerRun and 10 to Total.
func TestTotalSeesRareAllocations(t *testing.T) {
	if race.Enabled {
		t.Skip("-race allocates")
	}
	n := 0
	rare := func() {
		n++
		if n%10 == 0 {
			sink = make([]byte, 64+n%3)
		}
	}
	require.Zero(t, testing.AllocsPerRun(100, rare), "the integer mean hides them")
	n = 0
	require.EqualValues(t, 10, allocs.Total(100, rare))
	require.Zero(t, allocs.Total(100, func() { n++ }))
}

// RequireZero passes a function that does not allocate, and fails one
// that allocates on one run in ten, naming the function that allocated.
func TestRequireZero(t *testing.T) {
	n := 0
	allocs.RequireZero(t, 100, func() { n++ }, "counting")
	rec := &recorder{TB: t}
	func() {
		defer func() { _ = recover() }()
		allocs.RequireZero(rec, 100, func() { rareAlloc(&n) }, "rare %s", "growth")
	}()
	require.Contains(t, rec.msg, "rare growth: 10 heap allocations in 100 runs, want 0")
	require.Contains(t, rec.msg, "allocs_test.rareAlloc")
}

//go:noinline
func rareAlloc(n *int) {
	*n++
	if *n%10 == 0 {
		sink = make([]byte, 64+*n%3)
	}
}

// recorder keeps the failure instead of failing the test.
type recorder struct {
	testing.TB
	msg string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	panic(r)
}

// RequireZeroHere counts f's goroutine only: an allocation f has another
// goroutine make fails RequireZero and not RequireZeroHere; one f makes
// itself fails both.
func TestRequireZeroHere(t *testing.T) {
	if race.Enabled {
		t.Skip("-race allocates")
	}
	ask, done := make(chan struct{}), make(chan struct{})
	go func() {
		for range ask {
			sink = make([]byte, 64)
			done <- struct{}{}
		}
	}()
	defer close(ask)
	elsewhere := func() { ask <- struct{}{}; <-done }
	allocs.RequireZeroHere(t, 100, elsewhere, "another goroutine's")
	rec := &recorder{TB: t}
	func() {
		defer func() { _ = recover() }()
		allocs.RequireZero(rec, 100, elsewhere, "another goroutine's")
	}()
	require.Contains(t, rec.msg, "another goroutine's: 100 heap allocations in 100 runs, want 0")
	n := 0
	rec.msg = ""
	func() {
		defer func() { _ = recover() }()
		allocs.RequireZeroHere(rec, 100, func() { rareAlloc(&n) }, "mine")
	}()
	require.Contains(t, rec.msg, "mine: 10 heap allocations in 100 runs, want 0")
	require.Contains(t, rec.msg, "allocs_test.rareAlloc")
}
