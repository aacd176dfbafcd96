package p2p

// Desync repair (protocol 5). When checksums disagree (EventDesyncDetected)
// every player peer takes the same view of the truth at the desync's
// frame F, from its own checksum of F and those its peers reported:
//
//   - with three peers or more, the checksum a strict majority of them
//     holds (the source: the lowest seat among them);
//   - with two (or no majority), the arbiter's: the peer of seat
//     Config.Arbiter (0 by default), or the lowest seat present when that
//     peer is gone.
//
// A peer whose checksum is not the truth's has diverged: it asks the
// source (RepairAsk, again every round trip until an answer comes), which
// sends its state after its newest confirmed frame C (a frame every
// player's input is known for, so its state is final) in RepairParts of
// wire.RepairChunk bytes over the bulk feed (feed.go's budget and
// bursts; each part once, then once a round trip the parts not
// acknowledged), through the transport's bulk path. The diverged peer
// acknowledges each part (RepairAck: the parts held from the first, and a
// bitmap of those past), checks the whole state's CRC32-C, names the fields that
// starts its core session over from it (session.Rebase) and simulates
// again to the frame it was at, with the inputs it holds (its history:
// confirmed ones, and predictions past them), all within the tick that
// completes the transfer; EventDesyncRepaired tells it, with the fields
// the repair changed (replay.DescribeDesync: its newest confirmed state as
// it was against the same frame's after the repair, both after the same
// inputs). Nothing
// changes for the other peers: the next checksums agree.
//
// A peer that diverges again before any checksum agreed with its source
// since its last repair counts the repairs in a row; past maxRepairs it
// gives up: the match fails (AdvanceFrame returns a *rollnet.SyncError
// whose Reason is the forensics line). So does a repair not done within
// repairTimeout. Config.NoRepair turns it all off (a desync is only
// reported, as in protocol 4). A tick with no repair under way costs a
// comparison and allocates nothing; a repair allocates its buffers once.

import (
	"fmt"
	"math/bits"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/link"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/replay"
	"github.com/rollnet/rollnet/rollback"
)

const (
	// maxRepairs is how many repairs in a row (no checksum agreeing with
	// the source between them) a peer takes before it gives up.
	maxRepairs = 3
	// repairTimeout bounds a repair, from the desync found to the state
	// applied.
	repairTimeout = 10 * time.Second
	// serveEvery is how often one peer is served a new state (a new
	// desync): a peer asking for more is answered at this pace.
	serveEvery = time.Second / 4
	// repairTag marks the repair settings in the settings hash.
	repairTag = 0x5245 << 48
)

// repairer is a session's desync repair: as a diverged peer (the repair
// it asked for) and as the truth (the states it serves, to players and
// spectators).
type repairer[S any] struct {
	taking[S]
	off     bool   // Config.NoRepair
	arbiter int    // Config.Arbiter
	seen    uint64 // the endpoint's desync count last looked at
	look    bool   // a desync waits for reports to decide
	src     int    // the link asked

	taken []int // per player link: repairs taken from it

	apart   uint64          // player links whose desync is not healed yet (bit i)
	apartAt []rollnet.Frame // per player link: the frame of its desync
	apartT  []int64         // and when it was found

	serve    []serving // per link (players', then spectators'): the states served it
	np       int       // the player links (links[:np]); spectators' follow
	serving  uint64    // player links being served (bit i)
	watchers uint32    // spectator links being served (bit i-nPlayers)
	served   []int     // per link: repairs served it

	watchApart uint32                       // spectator links whose desync is not healed yet (bit i-np)
	watchAt    [MaxSpectators]rollnet.Frame // per spectator link: the frame of its desync
	watchT     [MaxSpectators]int64         // and when it was found
}

// taking is the diverged end of a repair, a player's or a spectator's:
// the state asked for and its parts as they arrive.
type taking[S any] struct {
	want   rollnet.Frame // the desync being repaired (F), NoFrame when none
	found  int64         // when the desync was found
	askAt  int64         // when the last ask went out
	frame  rollnet.Frame // the state being received (C), NoFrame before its first part
	sum    uint32
	parts  int32
	state  *S     // the state received
	mine   *S     // this end's state before the repair
	held   []bool // its parts held
	contig int32  // parts held from the first, less one

	done      rollnet.Frame // the state of the last repair (its stray parts are acknowledged)
	doneParts int32
	row       int // repairs since a checksum last agreed with the source
}

// serving is a state served to one diverged peer.
type serving struct {
	asked rollnet.Frame // the desync of its newest ask
	at    int64         // when its state was taken
	frame rollnet.Frame // the state's frame, NoFrame while one is due
	sum   uint32
	buf   []byte
	feed  feed   // its parts: ack the parts it holds from the first, at the last round
	sack  uint32 // the parts past ack+1 it holds (bit k: part ack+2+k)
}

// initRepair sets the repair's settings.
func (p *Session[S, I]) initRepair(cfg Config[I]) error {
	if cfg.Arbiter < 0 || cfg.Arbiter >= p.players {
		return fmt.Errorf("%w: Arbiter %d not a player of %d", errConfig, cfg.Arbiter, p.players)
	}
	p.rp = repairer[S]{off: cfg.NoRepair, arbiter: cfg.Arbiter, np: p.nPlayers, taking: newTaking[S]()}
	return nil
}

func newTaking[S any]() taking[S] {
	return taking[S]{want: rollnet.NoFrame, frame: rollnet.NoFrame, done: rollnet.NoFrame}
}

// repairs reports whether a repair needs the tick: a desync reported, one
// waiting for reports, one asked for, states being served.
func (p *Session[S, I]) repairs() bool {
	r := &p.rp
	return p.ep.Desyncs() != r.seen || r.look || r.want != rollnet.NoFrame || r.serving != 0 || r.watchers != 0 || r.apart != 0 ||
		r.watchApart != 0
}

// repairTick runs the repair after the tick's frame was simulated (the
// checksums of the tick computed): looks at new desyncs, takes the states
// due to be served, applies a state received whole, gives up past the
// bounds.
func (p *Session[S, I]) repairTick() {
	r := &p.rp
	if r.off {
		r.seen = p.ep.Desyncs()
		return
	}
	if r.whole() && r.frame < p.core.Frame() {
		p.applyRepair()
	}
	if r.want != rollnet.NoFrame && p.ep.Time()-r.found > int64(repairTimeout) {
		p.giveUp(p.ep.Links()[r.src], r.want, fmt.Sprintf("not repaired within %v", repairTimeout))
		return
	}
	if p.ep.Desyncs() != r.seen || r.look {
		p.repairLook()
	}
	if r.apart != 0 {
		p.healed()
	}
	if r.watchApart != 0 {
		p.watchHealed()
	}
	for m := r.serving; m != 0; m &= m - 1 {
		if sv := &r.serve[bits.TrailingZeros64(m)]; sv.frame == rollnet.NoFrame {
			p.snapshot(sv)
		}
	}
	// A spectator is served the players' truth: not while this peer is
	// apart from one of them, or repairing (it asks again until then).
	if r.watchers != 0 && r.want == rollnet.NoFrame && r.apart == 0 && !r.look {
		for m := r.watchers; m != 0; m &= m - 1 {
			if sv := &r.serve[r.np+bits.TrailingZeros32(m)]; sv.frame == rollnet.NoFrame {
				p.snapshot(sv)
			}
		}
	}
}

// repairLook decides, for each desync reported with a player peer, whether
// this peer diverged, and asks the truth for its state if so.
func (p *Session[S, I]) repairLook() {
	r := &p.rp
	r.seen, r.look = p.ep.Desyncs(), false
	for i, l := range p.ep.Links()[:p.nPlayers] {
		f := l.DesyncAt()
		if f == rollnet.NoFrame || l.State() != link.Running || p.rj.catching(i) {
			continue
		}
		if r.apartAt == nil {
			r.apartAt, r.apartT = make([]rollnet.Frame, p.nPlayers), make([]int64, p.nPlayers) // at the first desync
		}
		if r.apart&(1<<i) == 0 {
			r.apart |= 1 << i
			r.apartAt[i], r.apartT[i] = f, p.ep.Time()
		}
		src, known := p.truth(f)
		if !known {
			r.look = true // a peer's report of f is still on its way
			continue
		}
		if src >= 0 && r.want == rollnet.NoFrame { // (one repair at a time)
			p.ask(src, f)
		}
	}
	// A spectator apart: it asks for this peer's state (spectator_repair.go).
	for k, l := range p.ep.Links()[p.nPlayers:] {
		if f := l.DesyncAt(); f != rollnet.NoFrame && l.State() == link.Running && r.watchApart&(1<<k) == 0 {
			r.watchApart |= 1 << k
			r.watchAt[k], r.watchT[k] = f, p.ep.Time()
		}
	}
}

// watchHealed tells of each desync with a spectator that healed: a later
// checksum agreed (it took this peer's state, or this peer was repaired).
func (p *Session[S, I]) watchHealed() {
	r := &p.rp
	for m := r.watchApart; m != 0; m &= m - 1 {
		k := bits.TrailingZeros32(m)
		l := p.ep.Links()[p.nPlayers+k]
		if l.DesyncAt() != rollnet.NoFrame && l.State() == link.Running {
			continue
		}
		r.watchApart &^= 1 << k
		if l.DesyncAt() == rollnet.NoFrame {
			p.ep.Push(rollnet.Event{Kind: rollnet.EventDesyncRepaired, Peer: l.Peer, Player: -1,
				Frame: r.watchAt[k], Agreed: l.AgreedAt(), Timeout: time.Duration(p.ep.Time() - r.watchT[k])})
		}
	}
}

// truth returns the link of the peer to take the state from when this
// peer diverged at f (-1 when it did not), and false while a running
// peer's report of f is missing.
func (p *Session[S, I]) truth(f rollnet.Frame) (src int, known bool) {
	mine, ok := p.checks.Find(f)
	if !ok {
		return -1, true // no longer ours to compare
	}
	links := p.ep.Links()[:p.nPlayers]
	n := 1
	for i, l := range links {
		if l.State() != link.Running || p.rj.catching(i) {
			continue
		}
		if _, ok := l.Reported(f, p.checks.Interval); !ok {
			return -1, false
		}
		n++
	}
	sum := func(i int) uint32 { s, _ := links[i].Reported(f, p.checks.Interval); return s }
	live := func(i int) bool { return links[i].State() == link.Running && !p.rj.catching(i) }
	seat := func(i int) int { return bits.TrailingZeros64(links[i].Mask) }
	// A strict majority of three peers or more.
	if n >= 3 {
		for c := -1; c < len(links); c++ {
			v := mine
			if c >= 0 {
				if !live(c) {
					continue
				}
				v = sum(c)
			}
			votes := 0
			if mine == v {
				votes++
			}
			for i := range links {
				if live(i) && sum(i) == v {
					votes++
				}
			}
			if 2*votes <= n {
				continue
			}
			if v == mine {
				return -1, true
			}
			best := -1
			for i := range links {
				if live(i) && sum(i) == v && (best < 0 || seat(i) < seat(best)) {
					best = i
				}
			}
			return best, true
		}
	}
	// The arbiter: Config.Arbiter's peer, else the lowest seat present.
	arb := -2 // -1: this peer
	if o := p.owner[p.rp.arbiter]; o < 0 {
		arb = -1
	} else if live(o) {
		arb = o
	} else {
		arb = -1
		low := bits.TrailingZeros64(p.local)
		for i := range links {
			if live(i) && seat(i) < low {
				arb, low = i, seat(i)
			}
		}
	}
	if arb < 0 || sum(arb) == mine {
		return -1, true
	}
	return arb, true
}

// ask starts a repair of the desync at f from link src, or gives up past
// maxRepairs in a row.
func (p *Session[S, I]) ask(src int, f rollnet.Frame) {
	r := &p.rp
	l := p.ep.Links()[src]
	if !r.begin(l, f, p.ep.Time()) {
		p.giveUp(l, f, fmt.Sprintf("%d repairs in a row did not hold", r.row))
		return
	}
	r.src = src
}

// begin starts taking the state for the desync at f from l (at time
// now); false when maxRepairs in a row were taken from l without a
// checksum agreeing since (nothing started).
func (t *taking[S]) begin(l *link.Link, f rollnet.Frame, now int64) bool {
	if t.row > 0 && l.AgreedAt() > t.done {
		t.row = 0 // the last repair held: a checksum agreed since
	}
	if t.row >= maxRepairs {
		return false
	}
	t.row++
	t.want, t.found, t.askAt, t.frame = f, now, 0, rollnet.NoFrame
	return true
}

// whole reports whether the state asked for arrived whole.
func (t *taking[S]) whole() bool {
	return t.want != rollnet.NoFrame && t.frame != rollnet.NoFrame && t.contig == t.parts-1
}

// giveUp ends the match: the desync at f cannot be repaired (why says
// why), the forensics line said.
func (p *Session[S, I]) giveUp(l *link.Link, f rollnet.Frame, why string) {
	mine, _ := p.checks.Find(f)
	theirs, _ := l.Reported(f, p.checks.Interval)
	p.rp.want = rollnet.NoFrame
	p.rp.off = true
	p.ep.Fail(l, fmt.Sprintf("desync at frame %d (checksum %08x here, %08x at %s): %s", f, mine, theirs, l.Peer, why))
}

// snapshot takes the state served to a peer: the state after the newest
// frame confirmed here (final: every input of it known), and starts its
// feed.
func (p *Session[S, I]) snapshot(sv *serving) {
	c := min(p.core.ConfirmedFrame(), p.core.Frame()-1)
	st, err := p.core.StateAt(c)
	if err != nil || c < 0 {
		return // next tick
	}
	b := rollback.BytesOf(st)
	if len(sv.buf) != len(b) {
		sv.buf = make([]byte, len(b)) // once per peer served
	}
	copy(sv.buf, b)
	sv.frame, sv.sum, sv.at = c, rollback.Checksum(sv.buf), p.ep.Time()
	sv.feed.start(-1, p.ep.Time())
}

// repairFlush sends this tick's repair messages: the ask while no part
// came, the parts served.
func (p *Session[S, I]) repairFlush() {
	r := &p.rp
	tick := int64(time.Second) / int64(p.ep.Settings().FrameRate)
	if r.want != rollnet.NoFrame {
		r.askFlush(&p.ep, p.ep.Links()[r.src])
	}
	for m := r.serving; m != 0; m &= m - 1 {
		i := bits.TrailingZeros64(m)
		if sv := &r.serve[i]; sv.frame != rollnet.NoFrame {
			p.feedRepair(p.ep.Links()[i], sv, tick)
		}
	}
	for m := r.watchers; m != 0; m &= m - 1 {
		i := r.np + bits.TrailingZeros32(m)
		if sv := &r.serve[i]; sv.frame != rollnet.NoFrame {
			p.feedRepair(p.ep.Links()[i], sv, tick)
		}
	}
}

// askFlush asks l (the source) for the state while no part of it came:
// at once, then again once a round trip and a tick.
func (t *taking[S]) askFlush(ep *link.Endpoint, l *link.Link) {
	if t.want == rollnet.NoFrame || t.frame != rollnet.NoFrame || l.State() != link.Running {
		return
	}
	now, tick := ep.Time(), int64(time.Second)/int64(ep.Settings().FrameRate)
	if t.askAt == 0 || now-t.askAt > max(l.RTT(), 2*tick)+tick {
		t.askAt = now
		m := wire.Repair{Seq: l.Seq(), Kind: wire.RepairAsk, Frame: int32(t.want)}
		ep.Send(l, m.Append(ep.Buffer()))
	}
}

// servingLink reports whether link i is being served a state.
func (r *repairer[S]) servingLink(i int) bool {
	if i < r.np {
		return r.serving&(1<<i) != 0
	}
	return r.watchers&(1<<(i-r.np)) != 0
}

// setServing marks link i served a state, or not.
func (r *repairer[S]) setServing(i int, on bool) {
	switch {
	case i < r.np && on:
		r.serving |= 1 << i
	case i < r.np:
		r.serving &^= 1 << i
	case on:
		r.watchers |= 1 << (i - r.np)
	default:
		r.watchers &^= 1 << (i - r.np)
	}
}

// forget ends what link i was served: a spectator's link that starts
// over (a new spectator on its index).
func (r *repairer[S]) forget(i int) {
	if i >= r.np {
		r.watchApart &^= 1 << (i - r.np)
	}
	if r.serve == nil {
		return
	}
	r.setServing(i, false)
	r.serve[i].asked, r.serve[i].frame, r.serve[i].at = rollnet.NoFrame, rollnet.NoFrame, 0
	r.served[i] = 0
}

// feedRepair sends l the parts of sv's state due: each once, in bursts
// within the bulk feed's budget (feed.go: the parts are its frames); then,
// once a round trip and two ticks, again each part l has not said it
// holds (its acknowledgement, and the parts past it its bitmap names),
// so that every part lost in a round comes back in the next.
func (p *Session[S, I]) feedRepair(l *link.Link, sv *serving, tick int64) {
	if l.State() != link.Running {
		p.rp.setServing(l.Index(), false)
		return
	}
	t := p.ep.Time()
	f := &sv.feed
	last := rollnet.Frame(len(sv.buf)+wire.RepairChunk-1)/wire.RepairChunk - 1
	f.refill(t)
	if f.to >= last && t-f.at > l.RTT()+2*tick {
		f.at = t // a round trip since the last round: send again what it lacks
		for k := f.ack + 1; k <= last && f.tokens > 0; k++ {
			if d := k - f.ack - 2; d >= 0 && d < 32 && sv.sack&(1<<d) != 0 {
				continue // it holds it
			}
			n := p.sendPart(l, sv, k)
			if n <= 0 {
				break
			}
			f.sent(k, 0, n)
		}
		return
	}
	for range feedBurst {
		start, _, due := f.next(last)
		if !due {
			return
		}
		n := p.sendPart(l, sv, start)
		if n <= 0 {
			return
		}
		f.sent(start, 1, n)
		f.at = t
	}
}

// sendPart sends l part k of sv's state; it returns the bytes sent (-1:
// the transport did not take it).
func (p *Session[S, I]) sendPart(l *link.Link, sv *serving, k rollnet.Frame) int {
	off := int(k) * wire.RepairChunk
	m := wire.Repair{Seq: l.Seq(), Kind: wire.RepairPart, Frame: int32(sv.frame), Sum: sv.sum, Size: uint32(len(sv.buf)),
		Part: int32(k), Data: sv.buf[off:min(off+wire.RepairChunk, len(sv.buf))]}
	b := m.Append(p.ep.Buffer())
	if !p.ep.SendBulk(l, b) {
		return -1
	}
	return len(b)
}

// handleRepair processes a Repair message from link l: a player's, or a
// spectator's ask and acknowledgements (a spectator serves nothing).
func (p *Session[S, I]) handleRepair(l *link.Link, b []byte) {
	var m wire.Repair
	i := l.Index()
	if err := wire.ParseRepair(b, &m); err != nil || l.State() != link.Running || (i >= p.nPlayers && m.Kind == wire.RepairPart) {
		l.Malformed()
		return
	}
	if !p.ep.Accept(l, m.Seq) || p.rp.off {
		return
	}
	switch m.Kind {
	case wire.RepairAsk:
		p.repairAsked(l, rollnet.Frame(m.Frame))
	case wire.RepairPart:
		p.repairPart(l, &m)
	case wire.RepairAck:
		p.repairAcked(l, &m)
	}
}

// repairAsked takes l's ask for the state, for its desync at f.
func (p *Session[S, I]) repairAsked(l *link.Link, f rollnet.Frame) {
	r := &p.rp
	i := l.Index()
	if int(f)%max(p.checks.Interval, 1) != 0 || f > p.checks.Newest() {
		l.Malformed() // a desync at a frame not checksummed here
		return
	}
	if r.serve == nil {
		n := p.nPlayers + MaxSpectators
		r.serve = make([]serving, n) // at the first ask of the match
		r.served = make([]int, n)
		for k := range r.serve {
			r.serve[k].asked, r.serve[k].frame = rollnet.NoFrame, rollnet.NoFrame
		}
	}
	sv := &r.serve[i]
	if f <= sv.asked || (sv.at != 0 && p.ep.Time()-sv.at < int64(serveEvery)) {
		return // served already (or being served), or too soon: it asks again
	}
	sv.asked, sv.frame = f, rollnet.NoFrame
	r.setServing(i, true)
}

// repairAcked takes l's acknowledgement of the parts of the state it is
// served.
func (p *Session[S, I]) repairAcked(l *link.Link, m *wire.Repair) {
	r := &p.rp
	i := l.Index()
	if !r.servingLink(i) || r.serve[i].frame != rollnet.Frame(m.Frame) {
		return // a state served before
	}
	sv := &r.serve[i]
	a := rollnet.Frame(m.Part)
	if a > sv.feed.high {
		l.Malformed() // parts never sent
		return
	}
	if a > sv.feed.ack || a == sv.feed.ack {
		sv.feed.ack, sv.sack = a, m.Sum // the newest stands (a late one only costs parts sent again)
	}
	if int(a) == (len(sv.buf)+wire.RepairChunk-1)/wire.RepairChunk-1 {
		r.setServing(i, false)
		r.served[i]++
	}
}

// repairPart takes a part of the state this peer asked l for.
func (p *Session[S, I]) repairPart(l *link.Link, m *wire.Repair) {
	if p.rp.want != rollnet.NoFrame && l.Index() != p.rp.src {
		return // not asked for
	}
	p.rp.take(&p.ep, l, m)
}

// take takes part m of a state from l, the source asked; it acknowledges
// the parts held. A part of the state last applied, or of one no longer
// wanted, is acknowledged as held (the source stops sending it).
func (t *taking[S]) take(ep *link.Endpoint, l *link.Link, m *wire.Repair) {
	c := rollnet.Frame(m.Frame)
	if t.want == rollnet.NoFrame {
		if c == t.done {
			t.ack(ep, l, c, t.doneParts, 0) // a stray part of the state applied: it is held
		} else if c > t.done {
			t.ack(ep, l, c, m.Part, 0) // of a repair given up (healed before): enough
		}
		return
	}
	if t.frame != rollnet.NoFrame && c < t.frame {
		return // of an older state
	}
	if t.frame != c || m.Sum != t.sum {
		if t.state == nil {
			t.state = new(S) // at the first repair of the match
		}
		if int(m.Size) != len(rollback.BytesOf(t.state)) {
			l.Malformed() // not a state of ours
			return
		}
		t.parts = int32((int(m.Size) + wire.RepairChunk - 1) / wire.RepairChunk)
		if cap(t.held) < int(t.parts) {
			t.held = make([]bool, t.parts)
		}
		t.held = t.held[:t.parts]
		clear(t.held)
		t.frame, t.sum, t.contig = c, m.Sum, -1
	}
	if m.Part >= t.parts {
		l.Malformed()
		return
	}
	if !t.held[m.Part] {
		copy(rollback.BytesOf(t.state)[int(m.Part)*wire.RepairChunk:], m.Data)
		t.held[m.Part] = true
		for t.contig+1 < t.parts && t.held[t.contig+1] {
			t.contig++
		}
	}
	var sack uint32
	for d := range int32(32) {
		if k := t.contig + 2 + d; k < t.parts && t.held[k] {
			sack |= 1 << d
		}
	}
	t.ack(ep, l, c, t.contig, sack)
}

// ack acknowledges to l the parts 0..k of the state after c, and those
// past k+1 sack names (bit d: part k+2+d).
func (t *taking[S]) ack(ep *link.Endpoint, l *link.Link, c rollnet.Frame, k int32, sack uint32) {
	m := wire.Repair{Seq: l.Seq(), Kind: wire.RepairAck, Frame: int32(c), Part: k, Sum: sack}
	ep.Send(l, m.Append(ep.Buffer()))
}

// checked reports whether the state received is the one its parts named
// (its CRC32-C); if not, it is asked for again.
func (t *taking[S]) checked() bool {
	if rollback.Checksum(rollback.BytesOf(t.state)) != t.sum {
		t.frame, t.askAt = rollnet.NoFrame, 0
		return false
	}
	return true
}

// applied ends the repair whose state was applied: it returns the desync
// it repaired, and how long after it was found.
func (t *taking[S]) applied(now int64) (f rollnet.Frame, took time.Duration) {
	f, took = t.want, time.Duration(now-t.found)
	t.done, t.doneParts = t.frame, t.parts-1
	t.want, t.frame = rollnet.NoFrame, rollnet.NoFrame
	return f, took
}

// applyRepair takes the state received whole: checks it, starts the core
// over from it, and simulates again to the frame this peer was at.
func (p *Session[S, I]) applyRepair() {
	r := &p.rp
	l := p.ep.Links()[r.src]
	if !r.checked() {
		l.Malformed() // not the state its parts said: ask again
		return
	}
	c, target := r.frame, p.core.Frame()
	if int(target-c) >= (p.hist.mask+1)/2 {
		r.frame, r.askAt = rollnet.NoFrame, 0 // too old to simulate again from (a long stall): a newer one
		return
	}
	if r.mine == nil {
		r.mine = new(S) // at the first repair of the match
	}
	// The newest confirmed state as it was, to name the fields the repair
	// changed: the same frame after it has only the same inputs.
	cf := min(p.core.ConfirmedFrame(), target-1)
	own, err := p.core.StateAt(cf)
	if err == nil {
		*r.mine = *own
	}
	_ = p.core.Rebase(c, r.state)               // c >= 0
	end := p.fed[bits.TrailingZeros64(p.local)] // the local inputs the core had (all local players': the same frame)
	lf := c                                     // the local inputs given again
	for mask := p.all &^ p.local; mask != 0; mask &= mask - 1 {
		pl := bits.TrailingZeros64(mask)
		p.fed[pl] = min(p.fed[pl], c)
	}
	for {
		hi := p.acceptHi()
		for ; lf < end && lf < hi; lf++ {
			for mask := p.local; mask != 0; mask &= mask - 1 {
				pl := bits.TrailingZeros64(mask)
				var in I
				if b, ok := p.hist.get(lf+1, pl); ok {
					copyInput(rollback.BytesOf(&in), b)
				}
				_ = p.core.AddRemoteInput(pl, lf+1, in)
			}
		}
		p.feed()
		if p.core.Frame() >= target {
			break
		}
		if err := p.core.AdvanceFrame(); err != nil {
			break // (unreachable: every input it had before is given again)
		}
	}
	fields := fmt.Sprintf("the fields are unknown: frame %d is not held", cf)
	if now, e := p.core.StateAt(cf); err == nil && e == nil {
		if d, e := replay.DescribeDesync(r.mine, now, string(l.Peer)); e == nil {
			fields = d
		}
	}
	for _, pl := range p.ep.Links()[:p.nPlayers] {
		pl.ForgetDesync(p.checks.Newest()) // our checksums so far were of the state repaired
	}
	r.apart = 0 // (told here: not healed again)
	if r.taken == nil {
		r.taken = make([]int, p.nPlayers)
	}
	r.taken[r.src]++
	f, took := r.applied(p.ep.Time())
	r.seen = p.ep.Desyncs()
	p.ep.Push(rollnet.Event{Kind: rollnet.EventDesyncRepaired, Peer: l.Peer, Player: bits.TrailingZeros64(l.Mask),
		Frame: f, Agreed: c, Timeout: took, Reason: fields})
}

// healed tells of each desync with a peer that healed: a later checksum
// agreed (the peer was repaired, or this one by another's state).
func (p *Session[S, I]) healed() {
	r := &p.rp
	for m := r.apart; m != 0; m &= m - 1 {
		i := bits.TrailingZeros64(m)
		l := p.ep.Links()[i]
		if l.DesyncAt() != rollnet.NoFrame && l.State() == link.Running {
			continue
		}
		r.apart &^= 1 << i
		if l.DesyncAt() == rollnet.NoFrame {
			p.ep.Push(rollnet.Event{Kind: rollnet.EventDesyncRepaired, Peer: l.Peer, Player: bits.TrailingZeros64(l.Mask),
				Frame: r.apartAt[i], Agreed: l.AgreedAt(), Timeout: time.Duration(p.ep.Time() - r.apartT[i])})
		}
	}
}

// repairCounts returns how many desync repairs this session took from
// player link i (its state was wrong) and served to link i (a player's or
// a spectator's: i's was).
func (p *Session[S, I]) repairCounts(i int) (taken, served int) {
	if p.rp.taken != nil && i < p.nPlayers {
		taken = p.rp.taken[i]
	}
	if p.rp.served != nil {
		served = p.rp.served[i]
	}
	return taken, served
}
