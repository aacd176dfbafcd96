package local_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

func TestAllocsSendReceive(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	for _, c := range []struct {
		name string
		link local.Link
	}{
		{"Perfect", local.Link{}},
		{"Nasty", nasty},
		{"Ordered", local.Link{Latency: 40 * time.Millisecond, Jitter: 6 * time.Millisecond, Duplicate: 0.1, Ordered: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, local.Config{Seed: 1, QueueLen: 64, Link: c.link}, "a", "b")
			msg := make([]byte, 200)
			buf := make([]byte, transport.MaxDatagram)
			step := func() {
				_ = f.eps["a"].Send("b", msg)
				_ = f.eps["b"].Send("a", msg)
				f.clock.Advance(16 * time.Millisecond)
				for {
					if _, _, err := f.eps["b"].Receive(buf); err != nil {
						break
					}
				}
				for {
					if _, _, err := f.eps["a"].Receive(buf); err != nil {
						break
					}
				}
			}
			for range 100 { // warm up: both link directions exist
				step()
			}
			allocs.RequireZero(t, 2000, step)
			// Over many more steps, two allocations are tolerated for the
			// runtime's own background allocations.
			require.LessOrEqual(t, allocs.Total(20000, step), uint64(2), "allocations in 20,000 steps")
			s := f.net.Stats()
			require.NotZero(t, s.Delivered)
		})
	}
}

func TestAllocsFullQueueAndPartition(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	// Dropping on a full queue, sending into a partition and the errors do
	// not allocate either.
	f := newFixture(t, local.Config{QueueLen: 4, Link: local.Link{Latency: time.Second}}, "a", "b", "c")
	msg := make([]byte, 64)
	buf := make([]byte, transport.MaxDatagram)
	big := make([]byte, transport.MaxDatagram+1)
	for range 10 {
		_ = f.eps["a"].Send("b", msg)
	}
	f.net.Partition("a", "c")
	_ = f.eps["a"].Send("c", msg)
	allocs.RequireZero(t, 1000, func() {
		_ = f.eps["a"].Send("b", msg)      // full
		_ = f.eps["a"].Send("c", msg)      // partitioned
		_ = f.eps["a"].Send("nobody", msg) // unknown
		_ = f.eps["a"].Send("b", big)      // too large
		_, _, _ = f.eps["b"].Receive(buf)  // nothing due
	})
}
