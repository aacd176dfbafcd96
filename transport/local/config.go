package local

import (
	"fmt"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/linkmodel"
)

// defaultQueueLen is the per-endpoint bound on datagrams in flight to an
// endpoint plus those waiting for it to Receive, when Config.QueueLen is zero.
const defaultQueueLen = 256

// maxQueueLen is the largest Config.QueueLen accepted.
const maxQueueLen = 1 << 16

// Config configures a Network. The zero value is a network with a perfect
// default link (no delay, no loss), seed 0, on the wall clock.
type Config struct {
	// Seed seeds every link's randomness. The same seed and the same calls
	// (on the same clock readings) give the same deliveries, byte for byte.
	Seed uint64

	// Now is the clock. Delivery happens when the receiver polls at or after
	// a datagram's delivery time. Nil means time.Now: the real-time mode for
	// demos, with the same code path as fake time.
	Now func() time.Time

	// QueueLen bounds, per endpoint, the datagrams in flight to it plus
	// those waiting for Receive, from all senders. A datagram that finds
	// the queue full displaces the newest datagram of the sender holding
	// the most, or is dropped when its own sender holds the most; either
	// drop is counted (Stats.DroppedFull). Zero means 256;
	// at most 65536. The endpoint's packet buffers (QueueLen ×
	// transport.MaxDatagram bytes) are allocated once, by Endpoint.
	QueueLen int

	// Link is the default link, used for every direction that has no link of
	// its own (see Network.SetLink).
	Link Link
}

// Link describes one direction of a link. The zero value is a perfect link:
// no delay, no loss, no duplicates, in order.
type Link struct {
	// Latency is the base one-way delay.
	Latency time.Duration

	// Jitter spreads each datagram's delay uniformly over
	// [Latency-Jitter, Latency+Jitter], to the nanosecond. At most Latency.
	Jitter time.Duration

	// Loss is the probability that a datagram is lost, independently of the
	// others (in the good state of the burst model, when Burst is set).
	Loss float64

	// Burst, when Burst.Enter > 0, adds Gilbert-Elliott burst loss.
	Burst Burst

	// Duplicate is the probability that a datagram is delivered twice. The
	// copy has its own delay drawn from [Latency-Jitter, Latency+Jitter].
	Duplicate float64

	// Reorder is the probability that a datagram is held back by an extra
	// ReorderDelay, so that datagrams sent after it overtake it. Not allowed
	// with Ordered.
	Reorder float64

	// ReorderDelay is the extra delay of a reordered datagram. Zero means
	// 2×Jitter + 20 ms.
	ReorderDelay time.Duration

	// Ordered keeps the direction in order: jitter may delay a datagram past
	// its predecessor's delivery time but never ahead of it, and duplicates
	// arrive after their original. Loss still applies.
	Ordered bool
}

// Burst is the two-state Gilbert-Elliott burst-loss model. The link is in a
// good or a bad state. A datagram is lost with probability Link.Loss in the
// good state and Burst.Loss in the bad one; after each datagram the link
// moves from good to bad with probability Enter and from bad to good with
// probability Leave. In the long run the link is bad a fraction
// Enter/(Enter+Leave) of the datagrams, and a bad spell lasts 1/Leave
// datagrams on average.
type Burst struct {
	// Enter is the per-datagram probability of going from good to bad.
	// Zero disables the burst model.
	Enter float64

	// Leave is the per-datagram probability of going from bad to good. It
	// must be above zero when Enter is.
	Leave float64

	// Loss is the loss probability in the bad state. Zero means 1: every
	// datagram of a bad spell is lost.
	Loss float64
}

func (c Config) validate() (Config, error) {
	switch {
	case c.QueueLen == 0:
		c.QueueLen = defaultQueueLen
	case c.QueueLen < 0 || c.QueueLen > maxQueueLen:
		return c, fmt.Errorf("%w: local: QueueLen %d is outside [1, %d]", rollnet.ErrConfig, c.QueueLen, maxQueueLen)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	l, err := c.Link.validate()
	if err != nil {
		return c, fmt.Errorf("%w (Config.Link)", err)
	}
	c.Link = l
	return c, nil
}

// validate checks l and returns it with its defaults filled in.
func (l Link) validate() (Link, error) {
	v, err := l.model().Validate()
	if err != nil {
		return l, err
	}
	l.Burst.Loss, l.ReorderDelay = v.BurstLoss, v.ReorderDelay
	return l, nil
}

// model is l in the link model's terms.
func (l Link) model() linkmodel.Link {
	return linkmodel.Link{
		Latency: l.Latency, Jitter: l.Jitter, ReorderDelay: l.ReorderDelay,
		Loss: l.Loss, Duplicate: l.Duplicate, Reorder: l.Reorder,
		BurstEnter: l.Burst.Enter, BurstLeave: l.Burst.Leave, BurstLoss: l.Burst.Loss,
		Ordered: l.Ordered,
	}
}
