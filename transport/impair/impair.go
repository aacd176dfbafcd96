package impair

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/linkmodel"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// defaultQueueLen is the datagrams held back at once in each direction when
// Config.QueueLen is zero.
const defaultQueueLen = 1024

// maxQueueLen is the largest Config.QueueLen accepted.
const maxQueueLen = 1 << 16

// Config configures a Transport. The zero value impairs nothing.
type Config struct {
	// Out is the link of what this endpoint sends, In of what it receives.
	// The zero Link is perfect. local.Link's documentation says what each
	// field does; Ordered keeps a direction's deliveries in send order.
	Out, In local.Link

	// Seed seeds both directions' models (see the package documentation).
	Seed uint64

	// QueueLen bounds the datagrams held back in each direction. Zero means
	// 1024; at most 65536.
	QueueLen int
}

// Stats counts what the wrapper did to datagrams. Every datagram Send
// accepted is, in the out direction, passed on (Sent), lost, dropped or
// still held; likewise every datagram received from the wrapped transport
// in the in direction, with Received for those handed to the caller.
type Stats struct {
	Sent, Received              uint64 // passed to the wrapped transport / handed to the caller
	LostOut, LostIn             uint64 // lost to the link's loss or burst loss
	DuplicatedOut, DuplicatedIn uint64 // extra copies made by Link.Duplicate
	DroppedFull                 uint64 // dropped because their direction's line was full
	HeldOut, HeldIn             int    // held back now
}

// Transport is an impaired transport.Transport, as New returns it: see the
// package documentation. It is a transport.Expecter too (Expect and
// ExpectAnyone pass to the wrapped transport when it is one).
type Transport interface {
	transport.Transport
	transport.Expecter
	// Stats returns what the wrapper did to datagrams so far.
	Stats() Stats
}

// impaired is the Transport New returns.
type impaired struct {
	inner transport.Transport

	mu      sync.Mutex
	out, in linkmodel.Model
	ordOut  bool
	ordIn   bool
	lineOut line
	lineIn  line
	stats   Stats
	closed  bool

	wake    chan struct{}
	done    chan struct{}
	stopped chan struct{}
}

// Wrap is New(inner, *c) as a transport.Transport: the form a caller that
// takes any wrapper holds (netplay.Config.Impair), so that a build that never
// makes a Config links none of this package.
func (c *Config) Wrap(inner transport.Transport) (transport.Transport, error) {
	return New(inner, *c)
}

// New wraps inner. It fails with rollnet.ErrConfig for a Config out of range
// (wrapping rollnet.ErrConfig for a Link). The Transport owns inner from now on:
// Close closes it.
func New(inner transport.Transport, cfg Config) (Transport, error) {
	if inner == nil {
		return nil, fmt.Errorf("%w: impair: nil transport", rollnet.ErrConfig)
	}
	switch {
	case cfg.QueueLen == 0:
		cfg.QueueLen = defaultQueueLen
	case cfg.QueueLen < 0 || cfg.QueueLen > maxQueueLen:
		return nil, fmt.Errorf("%w: impair: QueueLen %d is outside [1, %d]", rollnet.ErrConfig, cfg.QueueLen, maxQueueLen)
	}
	me := string(inner.Local())
	out, err := modelOf(cfg.Out).Validate()
	if err != nil {
		return nil, fmt.Errorf("%w: impair: Out: %w", rollnet.ErrConfig, err)
	}
	in, err := modelOf(cfg.In).Validate()
	if err != nil {
		return nil, fmt.Errorf("%w: impair: In: %w", rollnet.ErrConfig, err)
	}
	t := &impaired{
		inner:   inner,
		out:     linkmodel.New(out, linkmodel.Seed(cfg.Seed, me, "out")),
		in:      linkmodel.New(in, linkmodel.Seed(cfg.Seed, me, "in")),
		ordOut:  cfg.Out.Ordered,
		ordIn:   cfg.In.Ordered,
		lineOut: newLine(cfg.QueueLen),
		lineIn:  newLine(cfg.QueueLen),
		wake:    make(chan struct{}, 1),
		done:    make(chan struct{}),
		stopped: make(chan struct{}),
	}
	go t.run()
	return t, nil
}

// Local is the wrapped transport's identity.
func (t *impaired) Local() transport.Peer { return t.inner.Local() }

// Stats returns the counts so far.
func (t *impaired) Stats() Stats {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.stats
	s.HeldOut, s.HeldIn = len(t.lineOut.q), len(t.lineIn.q)
	return s
}

// hold runs one datagram through a direction's model and holds what
// survives (two copies for a duplicate); t.mu is held.
func (t *impaired) hold(m *linkmodel.Model, l *line, ordered bool, now time.Time, peer transport.Peer, b []byte, lost, dup *uint64) {
	f := m.Next()
	if f.Lost {
		*lost++
		return
	}
	put := func(d time.Duration) {
		if l.full() {
			t.stats.DroppedFull++
			return
		}
		at := now.Add(d)
		if ordered && at.Before(l.last) {
			at = l.last
		}
		buf := l.buffer()
		l.push(at, peer, buf[:copy(buf, b)])
	}
	put(f.Delay)
	if f.Duplicate {
		*dup++
		put(f.DuplicateDelay)
	}
}

// Send holds b back (or loses it) and returns at once; the datagram reaches
// the wrapped transport at its delivery time, where an error (the peer
// gone, say) is no longer the caller's to see. It fails with
// transport.ErrTooLarge or transport.ErrClosed.
func (t *impaired) Send(to transport.Peer, b []byte) error {
	if len(b) > transport.MaxDatagram {
		return transport.ErrTooLarge
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return transport.ErrClosed
	}
	t.hold(&t.out, &t.lineOut, t.ordOut, time.Now(), to, b, &t.stats.LostOut, &t.stats.DuplicatedOut)
	select {
	case t.wake <- struct{}{}:
	default:
	}
	return nil
}

// Receive takes in what the wrapped transport has (losing some, holding
// the rest back) and returns the earliest datagram whose time has come, or
// transport.ErrNoPacket. A datagram longer than buf is dropped with
// transport.ErrShortBuffer.
func (t *impaired) Receive(buf []byte) (int, transport.Peer, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return 0, "", transport.ErrClosed
	}
	now := time.Now()
	scratch := t.lineIn.buffer()
	for {
		n, from, err := t.inner.Receive(scratch)
		if errors.Is(err, transport.ErrNoPacket) {
			break
		}
		if errors.Is(err, transport.ErrShortBuffer) {
			continue // over MaxDatagram: no transport should have sent it
		}
		if err != nil {
			t.lineIn.release(scratch)
			return 0, "", err
		}
		t.hold(&t.in, &t.lineIn, t.ordIn, now, from, scratch[:n], &t.stats.LostIn, &t.stats.DuplicatedIn)
	}
	t.lineIn.release(scratch)
	d, ok := t.lineIn.due(now)
	if !ok {
		return 0, "", transport.ErrNoPacket
	}
	defer t.lineIn.release(d.b)
	if len(d.b) > len(buf) {
		return 0, "", transport.ErrShortBuffer
	}
	t.stats.Received++
	return copy(buf, d.b), d.peer, nil
}

// run passes each datagram held on the way out to the wrapped transport
// when its time comes.
func (t *impaired) run() {
	defer close(t.stopped)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		t.mu.Lock()
		now := time.Now()
		for {
			d, ok := t.lineOut.due(now)
			if !ok {
				break
			}
			_ = t.inner.Send(d.peer, d.b)
			t.stats.Sent++
			t.lineOut.release(d.b)
		}
		wait := time.Hour
		if at, ok := t.lineOut.next(); ok {
			wait = at.Sub(now)
		}
		t.mu.Unlock()
		timer.Reset(wait)
		select {
		case <-t.done:
			return
		case <-t.wake:
		case <-timer.C:
		}
	}
}

// Path forwards to the wrapped transport when it is a
// transport.PathReporter (the path under the impairment: its round trip
// leaves the wrapper's delay out), and fails wrapping
// errors.ErrUnsupported when it is not.
func (t *impaired) Path(p transport.Peer) (transport.PathInfo, error) {
	if pr, ok := t.inner.(transport.PathReporter); ok {
		return pr.Path(p)
	}
	return transport.PathInfo{}, fmt.Errorf("impair: %w: the wrapped transport reports no path", errors.ErrUnsupported)
}

// Expect forwards to the wrapped transport when it is a
// transport.Expecter. Datagrams already held are delivered.
func (t *impaired) Expect(peers ...transport.Peer) {
	if x, ok := t.inner.(transport.Expecter); ok {
		x.Expect(peers...)
	}
}

// ExpectAnyone forwards to the wrapped transport when it is a
// transport.Expecter.
func (t *impaired) ExpectAnyone() {
	if x, ok := t.inner.(transport.Expecter); ok {
		x.ExpectAnyone()
	}
}

// Close stops the delay lines (what they hold is lost) and closes the
// wrapped transport. It is safe to call more than once.
func (t *impaired) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	t.mu.Unlock()
	close(t.done)
	<-t.stopped
	return t.inner.Close()
}

var (
	_ transport.Transport = (*impaired)(nil)
	_ transport.Expecter  = (*impaired)(nil)
)

// modelOf is l in the link model's terms (transport/local's Network
// draws from the same model).
func modelOf(l local.Link) linkmodel.Link {
	return linkmodel.Link{
		Latency: l.Latency, Jitter: l.Jitter, ReorderDelay: l.ReorderDelay,
		Loss: l.Loss, Duplicate: l.Duplicate, Reorder: l.Reorder,
		BurstEnter: l.Burst.Enter, BurstLeave: l.Burst.Leave, BurstLoss: l.Burst.Loss,
		Ordered: l.Ordered,
	}
}
