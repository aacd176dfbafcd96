// Package linkmodel draws the fate of each datagram sent over one
// direction of an impaired link: the model transport/local's Network and
// transport/impair share, so that both impair a link the same way. Its
// Link is transport/local's Link with the burst model's fields flattened;
// see local.Link for their meaning.
package linkmodel

import (
	"fmt"
	"math"
	"time"

	"github.com/rollnet/rollnet"
)

// Link is one direction's settings: local.Link's fields (BurstEnter,
// BurstLeave and BurstLoss are its Burst's).
type Link struct {
	Latency, Jitter, ReorderDelay     time.Duration
	Loss, Duplicate, Reorder          float64
	BurstEnter, BurstLeave, BurstLoss float64
	Ordered                           bool
}

// maxDelay bounds Latency, Jitter and ReorderDelay, to keep arithmetic on
// delivery times far from overflow.
const maxDelay = time.Hour

func checkProb(name string, p float64) error {
	if math.IsNaN(p) || p < 0 || p > 1 {
		return fmt.Errorf("%w: local: link: %s %v is outside [0, 1]", rollnet.ErrConfig, name, p)
	}
	return nil
}

func checkDelay(name string, d time.Duration) error {
	if d < 0 || d > maxDelay {
		return fmt.Errorf("%w: local: link: %s %v is outside [0, %v]", rollnet.ErrConfig, name, d, maxDelay)
	}
	return nil
}

// Validate checks l and returns it with its defaults filled in. It fails
// with rollnet.ErrConfig for a Link out of range; its messages name
// local.Link's fields.
func (l Link) Validate() (Link, error) {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"Latency", l.Latency}, {"Jitter", l.Jitter}, {"ReorderDelay", l.ReorderDelay}} {
		if err := checkDelay(d.name, d.v); err != nil {
			return l, err
		}
	}
	if l.Jitter > l.Latency {
		return l, fmt.Errorf("%w: local: link: Jitter %v exceeds Latency %v", rollnet.ErrConfig, l.Jitter, l.Latency)
	}
	for _, p := range []struct {
		name string
		v    float64
	}{
		{"Loss", l.Loss}, {"Duplicate", l.Duplicate}, {"Reorder", l.Reorder},
		{"Burst.Enter", l.BurstEnter}, {"Burst.Leave", l.BurstLeave}, {"Burst.Loss", l.BurstLoss},
	} {
		if err := checkProb(p.name, p.v); err != nil {
			return l, err
		}
	}
	if l.BurstEnter > 0 && l.BurstLeave == 0 {
		return l, fmt.Errorf("%w: local: link: Burst.Leave is 0 with Burst.Enter %v: the first bad spell would never end", rollnet.ErrConfig, l.BurstEnter)
	}
	if l.Ordered && l.Reorder > 0 {
		return l, fmt.Errorf("%w: local: link: Reorder %v on an Ordered link", rollnet.ErrConfig, l.Reorder)
	}
	if l.BurstLoss == 0 {
		l.BurstLoss = 1
	}
	if l.ReorderDelay == 0 {
		l.ReorderDelay = 2*l.Jitter + 20*time.Millisecond
	}
	return l, nil
}

// Fate is what a Link does to one datagram: it is lost, or delivered after
// Delay; a duplicated one is delivered once more after DuplicateDelay.
type Fate struct {
	Lost           bool
	Delay          time.Duration // Latency ± Jitter, plus ReorderDelay for a reordered datagram
	Duplicate      bool
	DuplicateDelay time.Duration // the copy's own Latency ± Jitter
}

// Model draws the Fate of each datagram sent over one direction of a Link,
// from its own splitmix64 generator: the same Link, seed and sequence of
// calls give the same fates. It holds the burst-loss state and reads no
// clock: local's Network applies its fates on its Config.Now, and
// transport/impair on the wall clock, so that both impair a link the same
// way. Ordered is left to the user of the fates (a datagram is never
// delivered before its predecessor), since only it knows delivery times. A
// Model is not safe for concurrent use; its methods allocate nothing.
type Model struct {
	link  Link
	rng   rng
	bad   bool // Gilbert-Elliott state
	plain bool // link neither loses, jitters, reorders nor duplicates: every fate is Latency (set)
}

// Set makes l, validated, the model's link from the next datagram on,
// keeping the generator and the burst state.
func (m *Model) Set(l Link) {
	m.link = l
	m.plain = l.Loss == 0 && l.BurstEnter == 0 && l.Jitter == 0 && l.Reorder == 0 && l.Duplicate == 0
}

// New returns the model of l, validated, drawing from seed.
func New(l Link, seed uint64) Model {
	m := Model{rng: rng{seed}}
	m.Set(l)
	return m
}

// Link is the model's link.
func (m *Model) Link() Link { return m.link }

// Each datagram takes a fixed number of uniform draws (draws), whatever
// the settings, so that changing one setting does not shift the randomness
// of the others: in order, the burst state's, the loss's, the delay's,
// the duplicate's, the duplicate's delay and the reordering's. splitmix64's
// state is a counter, so the k-th draw from a state is computed directly,
// and a draw whose setting is off (no jitter, no loss) is skipped without
// being computed: the fates and the generator's state are the same as if
// every draw were taken.
const (
	drawBurst = iota
	drawLoss
	drawDelay
	drawDup
	drawDupDelay
	drawReorder
	draws

	// drawsStep is a datagram's draws' move of the state: draws × golden,
	// modulo 2^64.
	drawsStep = 0xb54cda58fbbee87e
)

// at is the k-th draw of the datagram whose draws start after state s.
func at(s uint64, k int) float64 {
	return float64(mix64(s+uint64(k+1)*golden)>>11) * (1.0 / (1 << 53))
}

// Skip takes a datagram's draws without applying them (the burst state does
// not move): what a Network does for a datagram sent into a partition.
func (m *Model) Skip() { m.rng.s += drawsStep }

// Next draws the fate of the next datagram.
func (m *Model) Next() Fate {
	s := m.rng.s
	m.rng.s += drawsStep
	if m.plain { // every draw's setting is off: none is computed, the state moves the same
		return Fate{Delay: m.link.Latency}
	}
	c := &m.link
	lossP := c.Loss
	if m.bad {
		lossP = c.BurstLoss
	}
	if c.BurstEnter > 0 {
		if u := at(s, drawBurst); m.bad {
			m.bad = u >= c.BurstLeave
		} else {
			m.bad = u < c.BurstEnter
		}
	}
	if lossP > 0 && at(s, drawLoss) < lossP {
		return Fate{Lost: true}
	}
	f := Fate{Delay: c.Latency}
	if c.Jitter > 0 {
		f.Delay = delay(c, at(s, drawDelay))
	}
	if c.Reorder > 0 && at(s, drawReorder) < c.Reorder {
		f.Delay += c.ReorderDelay
	}
	if c.Duplicate > 0 && at(s, drawDup) < c.Duplicate {
		f.Duplicate, f.DuplicateDelay = true, c.Latency
		if c.Jitter > 0 {
			f.DuplicateDelay = delay(c, at(s, drawDupDelay))
		}
	}
	return f
}

// delay maps u in [0, 1) uniformly onto [Latency-Jitter, Latency+Jitter].
func delay(c *Link, u float64) time.Duration {
	j := int64(c.Jitter)
	off := int64(u * float64(2*j+1))
	off = min(off, 2*j)
	return time.Duration(int64(c.Latency) - j + off)
}

// Seed derives the seed of the direction from → to of a network or
// wrapper seeded with seed, as a Network does for each of its links, so
// that traffic on one direction never shifts another's randomness.
func Seed(seed uint64, from, to string) uint64 {
	return mix64(seed ^ mix64(fnv64(from)) ^ mix64(mix64(fnv64(to))+1))
}
