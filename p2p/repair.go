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
// it asked for) and as the truth (the states it serves).
type repairer[S any] struct {
	off     bool   // Config.NoRepair
	arbiter int    // Config.Arbiter
	seen    uint64 // the endpoint's desync count last looked at
	look    bool   // a desync waits for reports to decide

	want   rollnet.Frame // the desync being repaired (F), NoFrame when none
	src    int           // the link asked
	found  int64         // when the desync was found
	askAt  int64         // when the last ask went out
	frame  rollnet.Frame // the state being received (C), NoFrame before its first part
	sum    uint32
	parts  int32
	state  *S     // the state received
	mine   *S     // the newest confirmed state before the repair
	held   []bool // its parts held
	contig int32  // parts held from the first, less one

	done      rollnet.Frame // the state of the last repair (its stray parts are acknowledged)
	doneParts int32
	row       int   // repairs since a checksum last agreed with the source
	taken     []int // per player link: repairs taken from it

	apart   uint64          // player links whose desync is not healed yet (bit i)
	apartAt []rollnet.Frame // per player link: the frame of its desync
	apartT  []int64         // and when it was found

	serve   []serving // per player link: the states served it
	serving uint64    // links being served (bit i)
	served  []int     // per player link: repairs served it
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
	p.rp = repairer[S]{off: cfg.NoRepair, arbiter: cfg.Arbiter, want: rollnet.NoFrame, frame: rollnet.NoFrame, done: rollnet.NoFrame}
	return nil
}

// repairs reports whether a repair needs the tick: a desync reported, one
// waiting for reports, one asked for, states being served.
func (p *Session[S, I]) repairs() bool {
	r := &p.rp
	return p.ep.Desyncs() != r.seen || r.look || r.want != rollnet.NoFrame || r.serving != 0 || r.apart != 0
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
	if r.want != rollnet.NoFrame && r.frame != rollnet.NoFrame && r.contig == r.parts-1 && r.frame < p.core.Frame() {
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
	for m := r.serving; m != 0; m &= m - 1 {
		if sv := &r.serve[bits.TrailingZeros64(m)]; sv.frame == rollnet.NoFrame {
			p.snapshot(sv)
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
	if r.row > 0 && l.AgreedAt() > r.done {
		r.row = 0 // the last repair held: a checksum agreed since
	}
	if r.row >= maxRepairs {
		p.giveUp(l, f, fmt.Sprintf("%d repairs in a row did not hold", r.row))
		return
	}
	r.row++
	r.want, r.src, r.found, r.askAt, r.frame = f, src, p.ep.Time(), 0, rollnet.NoFrame
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
	t := p.ep.Time()
	tick := int64(time.Second) / int64(p.ep.Settings().FrameRate)
	if r.want != rollnet.NoFrame && r.frame == rollnet.NoFrame {
		l := p.ep.Links()[r.src]
		if l.State() == link.Running && (r.askAt == 0 || t-r.askAt > max(l.RTT(), 2*tick)+tick) {
			r.askAt = t
			m := wire.Repair{Seq: l.Seq(), Kind: wire.RepairAsk, Frame: int32(r.want)}
			p.ep.Send(l, m.Append(p.ep.Buffer()))
		}
	}
	for m := r.serving; m != 0; m &= m - 1 {
		i := bits.TrailingZeros64(m)
		if sv := &r.serve[i]; sv.frame != rollnet.NoFrame {
			p.feedRepair(p.ep.Links()[i], sv, tick)
		}
	}
}

// feedRepair sends l the parts of sv's state due: each once, in bursts
// within the bulk feed's budget (feed.go: the parts are its frames); then,
// once a round trip and two ticks, again each part l has not said it
// holds (its acknowledgement, and the parts past it its bitmap names),
// so that every part lost in a round comes back in the next.
func (p *Session[S, I]) feedRepair(l *link.Link, sv *serving, tick int64) {
	if l.State() != link.Running {
		p.rp.serving &^= 1 << l.Index()
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

// handleRepair processes a Repair message from player link l.
func (p *Session[S, I]) handleRepair(l *link.Link, b []byte) {
	var m wire.Repair
	i := l.Index()
	if err := wire.ParseRepair(b, &m); err != nil || i >= p.nPlayers || l.State() != link.Running {
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
		r.serve = make([]serving, p.nPlayers) // at the first ask of the match
		r.served = make([]int, p.nPlayers)
		for k := range r.serve {
			r.serve[k].asked, r.serve[k].frame = rollnet.NoFrame, rollnet.NoFrame
		}
	}
	sv := &r.serve[i]
	if f <= sv.asked || (sv.at != 0 && p.ep.Time()-sv.at < int64(serveEvery)) {
		return // served already (or being served), or too soon: it asks again
	}
	sv.asked, sv.frame = f, rollnet.NoFrame
	r.serving |= 1 << i
}

// repairAcked takes l's acknowledgement of the parts of the state it is
// served.
func (p *Session[S, I]) repairAcked(l *link.Link, m *wire.Repair) {
	r := &p.rp
	i := l.Index()
	if r.serving&(1<<i) == 0 || r.serve[i].frame != rollnet.Frame(m.Frame) {
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
		r.serving &^= 1 << i
		r.served[i]++
	}
}

// repairPart takes a part of the state this peer asked l for.
func (p *Session[S, I]) repairPart(l *link.Link, m *wire.Repair) {
	r := &p.rp
	c := rollnet.Frame(m.Frame)
	if c == r.done && r.want == rollnet.NoFrame {
		p.repairAck(l, c, r.doneParts, 0) // a stray part of the state applied: it is held
		return
	}
	if r.want == rollnet.NoFrame || l.Index() != r.src || (r.frame != rollnet.NoFrame && c < r.frame) {
		return // not asked for, or of an older state
	}
	if r.frame != c || m.Sum != r.sum {
		if r.state == nil {
			r.state = new(S) // at the first repair of the match
		}
		if int(m.Size) != len(rollback.BytesOf(r.state)) {
			l.Malformed() // not a state of ours
			return
		}
		r.parts = int32((int(m.Size) + wire.RepairChunk - 1) / wire.RepairChunk)
		if cap(r.held) < int(r.parts) {
			r.held = make([]bool, r.parts)
		}
		r.held = r.held[:r.parts]
		clear(r.held)
		r.frame, r.sum, r.contig = c, m.Sum, -1
	}
	if m.Part >= r.parts {
		l.Malformed()
		return
	}
	if !r.held[m.Part] {
		copy(rollback.BytesOf(r.state)[int(m.Part)*wire.RepairChunk:], m.Data)
		r.held[m.Part] = true
		for r.contig+1 < r.parts && r.held[r.contig+1] {
			r.contig++
		}
	}
	var sack uint32
	for d := range int32(32) {
		if k := r.contig + 2 + d; k < r.parts && r.held[k] {
			sack |= 1 << d
		}
	}
	p.repairAck(l, c, r.contig, sack)
}

// repairAck acknowledges to l the parts 0..k of the state after c, and
// those past k+1 sack names (bit d: part k+2+d).
func (p *Session[S, I]) repairAck(l *link.Link, c rollnet.Frame, k int32, sack uint32) {
	m := wire.Repair{Seq: l.Seq(), Kind: wire.RepairAck, Frame: int32(c), Part: k, Sum: sack}
	p.ep.Send(l, m.Append(p.ep.Buffer()))
}

// applyRepair takes the state received whole: checks it, starts the core
// over from it, and simulates again to the frame this peer was at.
func (p *Session[S, I]) applyRepair() {
	r := &p.rp
	l := p.ep.Links()[r.src]
	if rollback.Checksum(rollback.BytesOf(r.state)) != r.sum {
		l.Malformed() // not the state its parts said: ask again
		r.frame, r.askAt = rollnet.NoFrame, 0
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
	r.done, r.doneParts = c, r.parts-1
	f := r.want
	r.want, r.frame, r.seen = rollnet.NoFrame, rollnet.NoFrame, p.ep.Desyncs()
	p.ep.Push(rollnet.Event{Kind: rollnet.EventDesyncRepaired, Peer: l.Peer, Player: bits.TrailingZeros64(l.Mask),
		Frame: f, Agreed: c, Timeout: time.Duration(p.ep.Time() - r.found), Reason: fields})
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
// player link i (its state was wrong) and served to it (i's was).
func (p *Session[S, I]) repairCounts(i int) (taken, served int) {
	if p.rp.taken != nil {
		taken = p.rp.taken[i]
	}
	if p.rp.served != nil {
		served = p.rp.served[i]
	}
	return taken, served
}
