package link

import "github.com/rollnet/rollnet/codec"

// Checks holds this end's own checksums of confirmed frames, one every
// Interval frames.
type Checks struct {
	Interval int   // frames apart; <= 0 never
	Next     Frame // the next frame due a checksum
	ring     [checkRing]checkEntry
	newest   checkEntry
}

// NewChecks returns the checksums of an owner checksumming every interval
// frames.
func NewChecks(interval int) Checks {
	c := Checks{Interval: interval, Next: Frame(interval), newest: checkEntry{frame: NoFrame}}
	for i := range c.ring {
		c.ring[i].frame = NoFrame
	}
	return c
}

// Newest returns the newest frame checksummed, or NoFrame.
func (c *Checks) Newest() Frame { return c.newest.frame }

func (c *Checks) find(f Frame) (uint32, bool) {
	e := c.ring[int(f/Frame(max(c.Interval, 1)))%checkRing]
	return e.sum, e.frame == f
}

func (c *Checks) store(f Frame, sum uint32) {
	c.ring[int(f/Frame(max(c.Interval, 1)))%checkRing] = checkEntry{frame: f, sum: sum}
	c.newest = checkEntry{frame: f, sum: sum}
}

// SendChecksum sends l our newest checksum.
func (e *Endpoint) SendChecksum(l *Link, own *Checks) {
	m := codec.Checksum{Seq: l.seq, Frame: int32(own.newest.frame), Checksum: own.newest.sum}
	e.Send(l, m.Append(e.out[:0]))
}

// RepeatChecksum sends l our newest checksum again while it is owed
// repeats (each new checksum goes out three times: once from
// LocalChecksum, twice from here).
func (e *Endpoint) RepeatChecksum(l *Link, own *Checks) {
	if l.checkAgain > 0 && own.newest.frame != NoFrame {
		l.checkAgain--
		e.SendChecksum(l, own)
	}
}

// RemoteChecksum records l's checksum report b and compares it with ours.
func (e *Endpoint) RemoteChecksum(l *Link, own *Checks, b []byte) {
	m, _, err := codec.ParseChecksum(b)
	if err != nil || m.Frame < 0 {
		l.malformed++
		return
	}
	f := Frame(m.Frame)
	if own.Interval <= 0 || int(f)%own.Interval != 0 || !l.Plausible(m.Seq) {
		l.malformed++
		return
	}
	e.Heard(l)
	r := &l.checks[int(f/Frame(own.Interval))%checkRing]
	if r.frame == f && r.done {
		return // a repeat of a report already compared
	}
	*r = checkEntry{frame: f, sum: m.Checksum}
	if sum, ok := own.find(f); ok {
		r.done = true
		e.compare(l, f, sum, m.Checksum)
	}
}

// compare counts a comparison with l at f (once per frame: the callers
// mark the report done) and reports a desync with l at f once.
func (e *Endpoint) compare(l *Link, f Frame, local, remote uint32) {
	l.compared++
	if local == remote {
		l.agreed++
	}
	if local == remote || f <= l.desyncAt {
		return
	}
	l.desyncAt = f
	e.events.Push(Event{Kind: EventDesyncDetected, Peer: l.Peer, Frame: f, Local: local, Remote: remote})
}

// LocalChecksum records our checksum at f, compares it with what each
// link reported, and sends it to every running link.
func (e *Endpoint) LocalChecksum(own *Checks, f Frame, sum uint32) {
	own.store(f, sum)
	slot := int(f/Frame(own.Interval)) % checkRing
	for _, l := range e.links {
		if l.state != Running {
			continue
		}
		if r := &l.checks[slot]; r.frame == f && !r.done {
			r.done = true
			e.compare(l, f, sum, r.sum)
		}
		e.SendChecksum(l, own)
		l.checkAgain = 2
	}
}
