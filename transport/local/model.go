package local

import "time"

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
// clock: a Network applies its fates on its Config.Now, and
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

// set makes l the model's link.
func (m *Model) set(l Link) {
	m.link = l
	m.plain = l.Loss == 0 && l.Burst.Enter == 0 && l.Jitter == 0 && l.Reorder == 0 && l.Duplicate == 0
}

// NewModel returns the model of l with its defaults filled in, drawing from
// seed. It fails with rollnet.ErrConfig for a Link out of range.
func NewModel(l Link, seed uint64) (Model, error) {
	l, err := l.validate()
	if err != nil {
		return Model{}, err
	}
	m := Model{rng: rng{seed}}
	m.set(l)
	return m, nil
}

// Link is the model's link, with its defaults filled in.
func (m *Model) Link() Link { return m.link }

// SetLink changes the link from the next datagram on, keeping the
// generator and the burst state. It fails with rollnet.ErrConfig for a Link out of
// range and leaves the model as it was.
func (m *Model) SetLink(l Link) error {
	l, err := l.validate()
	if err != nil {
		return err
	}
	m.set(l)
	return nil
}

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
		lossP = c.Burst.Loss
	}
	if c.Burst.Enter > 0 {
		if u := at(s, drawBurst); m.bad {
			m.bad = u >= c.Burst.Leave
		} else {
			m.bad = u < c.Burst.Enter
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

// LinkSeed derives the seed of the direction from → to of a network or
// wrapper seeded with seed, as a Network does for each of its links, so
// that traffic on one direction never shifts another's randomness.
func LinkSeed(seed uint64, from, to string) uint64 { return linkSeed(seed, from, to) }
