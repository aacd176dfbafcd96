package testkit

import (
	"fmt"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/transport/local"
)

// NewNet returns a local network of cfg (its Now set to the clock's) on a
// fake clock at Epoch. It fails t if cfg is refused.
func NewNet(t testing.TB, cfg local.Config) (*local.Clock, *local.Network) {
	t.Helper()
	clock := local.NewClock(Epoch)
	cfg.Now = clock.Now
	nw, err := local.NewNetwork(cfg)
	if err != nil {
		t.Fatalf("testkit: local network: %v", err)
	}
	return clock, nw
}

// Loop is one game loop of a cluster: a player, a spectator, a host, a
// client.
type Loop interface {
	// Next is when the loop ticks next; false while it does not tick at
	// all (cut off).
	Next() (time.Time, bool)
	// Tick runs one tick, at Next, and moves Next on.
	Tick()
}

// Run advances clock to end, tick by tick: each time the earliest due
// tick (the lowest-numbered loop first among ties) runs with the clock
// set to it. A tick due at end runs when atEnd is set. It allocates
// nothing.
func Run(clock *local.Clock, end time.Time, atEnd bool, loops []Loop) {
	for {
		var at time.Time
		who := -1
		for i, l := range loops {
			if next, ok := l.Next(); ok && (who < 0 || next.Before(at)) {
				at, who = next, i
			}
		}
		if who < 0 || at.After(end) || at.Equal(end) && !atEnd {
			clock.Set(end)
			return
		}
		clock.Set(at)
		loops[who].Tick()
	}
}

// Checksums is what holds the checksum of the state after a frame: a
// session, a host, a client.
type Checksums interface {
	ChecksumAt(frame rollnet.Frame) (uint32, error)
}

// Agreement is the cluster's check that every node computes the same
// state: the first checksum recorded for each frame, against which every
// later one is compared.
type Agreement struct {
	sums map[rollnet.Frame]uint32
	// Agreed counts the checksums compared with another node's.
	Agreed int
}

// NewAgreement returns an agreement with no checksum recorded.
func NewAgreement() *Agreement { return &Agreement{sums: map[rollnet.Frame]uint32{}} }

// Check records sum as the checksum of frame f, or compares it with the
// one recorded: false (with the recorded one) when they differ.
func (a *Agreement) Check(f rollnet.Frame, sum uint32) (want uint32, ok bool) {
	if want, held := a.sums[f]; held {
		if want != sum {
			return want, false
		}
		a.Agreed++
		return want, true
	}
	a.sums[f] = sum
	return sum, true
}

// Sum returns the checksum recorded for frame f.
func (a *Agreement) Sum(f rollnet.Frame) (uint32, bool) {
	sum, ok := a.sums[f]
	return sum, ok
}

// Forget drops the checksum of frame f, to keep the map small.
func (a *Agreement) Forget(f rollnet.Frame) { delete(a.sums, f) }

// Through checks src's checksums of the frames after from up to upto and
// returns the newest checked; it stops with an error naming node at the
// first frame it cannot answer or that disagrees.
func (a *Agreement) Through(node string, src Checksums, from, upto rollnet.Frame) (rollnet.Frame, error) {
	for f := from + 1; f <= upto; f++ {
		sum, err := src.ChecksumAt(f)
		if err != nil {
			return f - 1, fmt.Errorf("%s: checksum of frame %d: %w", node, f, err)
		}
		if want, ok := a.Check(f, sum); !ok {
			return f - 1, fmt.Errorf("%s: frame %d checksum %08x, another node had %08x", node, f, sum, want)
		}
	}
	return upto, nil
}
