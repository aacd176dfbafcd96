package p2p

// Rejoin: a player peer that dropped comes back into the running match.
//
//   - Identity: once synchronized, every peer sends every player peer a
//     Token (its share of the match id, and the key it gives that peer:
//     identity.keyFor, an HMAC of its rejoin secret with the receiver's
//     players; the secret itself is never sent), with each quality report
//     until acknowledged. The match id is the XOR of every peer's share;
//     each peer keeps the SHA-256 of the key every other peer gave it.
//     RejoinToken returns the match id and this peer's secret.
//   - Request: the player coming back (a new session, Config.Rejoin, or
//     Session.Rejoin on a new transport; from its old address or a new one)
//     sends Request{match id, its key for that peer} to every player
//     peer, every SyncRetry, until answered, and then to every peer whose
//     link has not completed its handshake yet, but its sponsor, while it
//     catches up (a joiner sends its join proof instead). Each peer
//     compares the hash of the key with the one it holds (constant time)
//     and the match id: the identity is the secret, not the address, and
//     a key proves it to the one peer it was given to. A request from a
//     new address that proves it moves the player's link there, once the
//     link's old address is silent (p2p_rebind.go). A mismatch is Refused and
//     changes nothing (counted malformed from the link's address, unknown
//     from a stranger's), as is a request past NetConfig.RejoinWindow
//     after the disconnection. A request that proves the identity while
//     the old link still runs (a process restarted before the timeout)
//     disconnects the old link.
//   - Agreement on R: the sponsor (the peer of the lowest-numbered player
//     still connected) waits until the player's freeze frame is agreed, then
//     picks R = its frame + input delay + a margin (the prediction window,
//     half a second, and twice the frames the catch-up will take), takes the
//     player back itself and sends At{R} to every other peer until each
//     acknowledges; until one does, the sponsor sends it no input past
//     R - MaxPrediction - InputDelay - 2, so no peer can have fed the
//     frozen input at R or later before it knows R. Every peer repeats the
//     frozen input up to R-1 and takes the player's live inputs from R:
//     every peer computes the same inputs.
//   - Catch-up: the sponsor sends the rejoining peer every confirmed frame
//     of [0, R) (all players, from the spectator archive and the history),
//     in bulk (feed.go: a burst a tick within a byte budget, go-back-N from
//     its InputAck, resent when the ack stalls). The
//     rejoining peer simulates them without drawing (AdvanceFrame returns
//     ErrRejoining meanwhile) and plays from R.

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/link"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/transport"
)

// The rejoin secret is the token's: a compile-time check that the wire
// carries as many bytes as rollnet.RejoinToken holds.
var _ [wire.SecretLen]byte = rollnet.RejoinToken{}.Secret

// RejoinStats says how a rejoin went, on the rejoining peer.
type RejoinStats struct {
	Frame    rollnet.Frame // the agreed frame R it plays from, NoFrame before
	Replayed int           // frames simulated to catch up
	CatchUp  time.Duration // from the acceptance to playing again
}

// Errors and reasons of the rejoin.
var (
	// ErrRejoining is returned by AdvanceFrame while this session comes
	// back into a match (asking, then replaying it without drawing). It
	// wraps ErrNotSynchronized: call again next tick.
	ErrRejoining = fmt.Errorf("%w: rejoining the match", ErrNotSynchronized)

	// ErrRejoinRefused reports a rejoin a peer refused; the error is a
	// *RejoinError naming the peer and the reason.
	ErrRejoinRefused = errors.New("p2p: rejoin refused")

	// ErrNoRejoinToken is returned by Rejoin before RejoinToken has one
	// (every peer's token has not arrived yet).
	ErrNoRejoinToken = errors.New("p2p: no rejoin token yet")
)

// RejoinError is a refused rejoin: which peer refused, and why.
type RejoinError struct {
	Peer   transport.Peer
	Reason string
}

// Error names the peer and the reason.
func (e *RejoinError) Error() string {
	return fmt.Sprintf("%v by %q: %s", ErrRejoinRefused, string(e.Peer), e.Reason)
}

// Unwrap returns ErrRejoinRefused.
func (e *RejoinError) Unwrap() error { return ErrRejoinRefused }

// Reasons a rejoin is refused, as RejoinError.Reason carries them: text
// for a person (a caller tells a refusal by ErrRejoinRefused).
const (
	reasonRejoinIdentity = "wrong match id or secret (not the player who left)"
	reasonRejoinWindow   = "the rejoin window (NetConfig.RejoinWindow) is over"
	reasonRejoinOff      = "rejoining is off (NetConfig.RejoinWindow < 0)"
	reasonRejoinArchive  = "the match's first inputs are no longer held (Config.SpectatorArchive)"
	reasonRejoinForfeit  = "the match stopped when the player left (Config.Absence Forfeit)"
)

var rejoinReasons = [...]string{1: reasonRejoinIdentity, 2: reasonRejoinWindow, 3: reasonRejoinOff, 4: reasonRejoinArchive,
	5: reasonRejoinForfeit}

const (
	refuseIdentity = 1
	refuseWindow   = 2
	refuseOff      = 3
	refuseArchive  = 4
	refuseForfeit  = 5 // (only between peers of AbsenceForfeit, which older ones cannot be)
)

// Phases of this session's own rejoin.
const (
	phaseNone     = iota
	phaseAsking   // requests out, waiting for an acceptance
	phaseCatching // accepted at R: synchronizing, then replaying [0, R)
	phaseLive     // back
)

// catchFrames is the rejoining peer's buffer of catch-up frames not yet
// simulated: twice the bulk feed's window (feed.go).
const catchFrames = 2 * feedWindow

// catchSteps is the most frames one AdvanceFrame replays while catching up.
const catchSteps = 4096

// never is a frame no match reaches.
const never = rollnet.Frame(math.MaxInt32)

// peerRejoin is a player link's part in rejoins.
type peerRejoin struct {
	hash     [sha256.Size]byte    // the hash of its key for us (or of a joiner's proof)
	key      [wire.SecretLen]byte // our key for it (identity.keyFor), which our Token carries
	share    uint64               // its share of the match id
	heard    bool                 // its token arrived
	tokAcked bool                 // it acknowledged ours
	goneAt   int64                // when it disconnected, -1 connected
	replyAt  int64                // when its last request was answered
	open     bool                 // its slot was open at the start
	pending  bool                 // taken back, its first live input not here yet
	backR    rollnet.Frame        // its R while pending, NoFrame none
	atR      rollnet.Frame        // the R we sponsor for it and tell the others, NoFrame none
	atAcked  uint64               // links that acknowledged atR
	feeding  bool                 // we send it catch-up frames
	feed     feed                 // and how (feed.go)
	frozen   uint64               // the players frozen when we took it back, for a repeated Accept
	joiner   [wire.SecretLen]byte // (an open slot) the secret of the joiner taken into it, which At carries
	gone     bool                 // (our own rejoin) its players were frozen when we were taken back
}

// rejoiner is a P2P session's part in rejoins: its identity, the rejoins
// of others it takes part in, and its own. It holds what only the rejoin
// uses; the P2P holds it (rj), as it holds its gate and its feeds.
type rejoiner[S any, I comparable] struct {
	id    identity             // ours, and the match's (p2p_identity.go)
	join  [wire.SecretLen]byte // a joiner's proof (identity.joinProof)
	peers []peerRejoin         // per player link

	// others coming back
	back  []rollnet.Frame // per player: the R of its latest rejoin, NoFrame none
	until []rollnet.Frame // per player: frozen input repeated below this (R while pending), never otherwise
	ats   int             // peers whose atR is set: At messages to send or settle

	// our own rejoin
	phase   int
	askAt   int64
	r       rollnet.Frame
	sponsor int
	catch   catchRing // the catch-up frames from the sponsor (p2p_catchup.go)
	began   int64
	live    uint64 // (AbsenceFreeze) player links whose live inputs reached us while we caught up
	stats   RejoinStats
	refused error

	// restart is what Rejoin starts the session over from.
	restart struct {
		cfg     Config[I]
		sim     func(*S, []I, rollnet.Frame)
		initial *S // the state frame 0 started from
	}
}

// quiet reports whether no rejoin is under way: not ours, and no At of
// another's to send. With every player link settled, the rejoin owes no
// link anything (rejoinFlush has nothing to do).
func (r *rejoiner[S, I]) quiet() bool { return r.phase == phaseNone && r.ats == 0 }

// settled reports whether the link acknowledged our token and is fed
// nothing.
func (pr *peerRejoin) settled() bool { return pr.tokAcked && !pr.feeding }

// openSlot reports whether player link i is an open slot no one took
// yet.
func (r *rejoiner[S, I]) openSlot(i int) bool {
	return r.peers != nil && r.peers[i].open && !r.peers[i].heard && r.peers[i].backR == rollnet.NoFrame
}

// absent reports whether player link i is not expected to synchronize:
// an open slot, or (in our own rejoin) a player frozen when we came back.
func (r *rejoiner[S, I]) absent(i int) bool {
	return r.openSlot(i) || r.peers != nil && r.peers[i].gone
}

// catching reports whether player link i was taken back and has not sent
// its first live input: its connection statuses are not counted yet.
func (r *rejoiner[S, I]) catching(i int) bool { return r.peers != nil && r.peers[i].pending }

// initRejoin sets up the rejoin state and the open slots of cfg.
func (p *Session[S, I]) initRejoin(cfg Config[I]) error {
	tok := cfg.Rejoin
	switch {
	case cfg.Open&^p.all != 0 || cfg.Open == p.all:
		return fmt.Errorf("%w: Open %b: not players of %d, or all of them", errConfig, cfg.Open, p.players)
	case cfg.Join && tok != (rollnet.RejoinToken{}):
		return fmt.Errorf("%w: Join and Rejoin both set", errConfig)
	case cfg.Join && p.local&^cfg.Open != 0:
		return fmt.Errorf("%w: Join with local players %b not in Open %b", errConfig, p.local, cfg.Open)
	}
	np := p.nPlayers
	r := &p.rj
	r.peers = make([]peerRejoin, np)
	r.back = make([]rollnet.Frame, p.players)
	r.until = make([]rollnet.Frame, p.players)
	for i := range r.peers {
		r.peers[i] = peerRejoin{goneAt: -1, replyAt: math.MinInt64 / 2, backR: rollnet.NoFrame, atR: rollnet.NoFrame}
	}
	for pl := range p.players {
		r.back[pl], r.until[pl] = rollnet.NoFrame, never
	}
	r.stats.Frame = rollnet.NoFrame
	for i, l := range p.ep.Links()[:np] {
		if l.Mask&cfg.Open == 0 {
			continue
		}
		if l.Mask&^cfg.Open != 0 {
			return fmt.Errorf("%w: Open %b holds some of peer %q's players, not all", errConfig, cfg.Open, string(l.Peer))
		}
		// Absent from the start, its players' input zero until joined.
		r.peers[i].open = true
		l.MarkGone()
		for mask := l.Mask; mask != 0; mask &= mask - 1 {
			pl := bits.TrailingZeros64(mask)
			p.disc[pl], p.frozenAt[pl] = true, rollnet.Frame(p.delay)-1
		}
	}
	n := p.ep.Settings()
	r.id = newIdentity(n.Rand)
	if tok != (rollnet.RejoinToken{}) || cfg.Join {
		if !cfg.Join {
			r.id.secret, r.id.match, r.id.known = tok.Secret, tok.Match, true
		}
		r.id.joining = cfg.Join
		r.phase, r.askAt = phaseAsking, math.MinInt64/2
		r.catch = newCatchRing(p.players, p.size, rollnet.Frame(p.delay)-1)
	}
	for i, l := range p.ep.Links()[:np] {
		r.peers[i].key = r.id.keyFor(l.Mask)
	}
	if cfg.Join {
		r.join = r.id.joinProof()
	}
	return nil
}

// requestTo is our request to player link i to take players back, with
// our key for it, or, a joiner, our join proof.
func (r *rejoiner[S, I]) requestTo(i int, players uint64) wire.Rejoin {
	if r.id.joining {
		return r.id.request(players, r.join)
	}
	return r.id.request(players, r.peers[i].key)
}

// rejoining reports whether this session is coming back and not playing
// yet.
func (p *Session[S, I]) rejoining() bool {
	return p.rj.phase == phaseAsking || p.rj.phase == phaseCatching
}

// RejoinToken returns what this player needs to come back into the match
// if it drops (save it where a restarted process finds it), once every
// peer's identity arrived (shortly after the match starts); ok is false
// before.
func (p *Session[S, I]) RejoinToken() (tok rollnet.RejoinToken, ok bool) {
	return p.rj.id.token()
}

// RejoinStats says how this session's rejoin went.
func (p *Session[S, I]) RejoinStats() RejoinStats { return p.rj.stats }

// Rejoin brings this session back into its match over t, a new transport
// (its Local may be a new address: the other peers follow the proven
// secret; it finds them at the addresses its links have now), after its
// old one dropped (the other peers froze its players, or will once they
// notice): the session starts
// over from the initial state, asks the other peers to take it back,
// replays the match without drawing (AdvanceFrame returns ErrRejoining,
// Frame climbs fast) and plays again from the frame they agree on
// (EventPlayerRejoined). It is what a new process does with
// Config.Rejoin. AdvanceFrame returns a *RejoinError if a peer
// refuses. It returns ErrNoRejoinToken before RejoinToken has one. The
// session no longer uses its old transport; it allocates.
func (p *Session[S, I]) Rejoin(t transport.Transport) error {
	tok, ok := p.RejoinToken()
	if !ok {
		return ErrNoRejoinToken
	}
	if t == nil {
		return fmt.Errorf("%w: nil transport", errConfig)
	}
	cfg, sim, initial := p.rj.restart.cfg, p.rj.restart.sim, *p.rj.restart.initial
	events := p.ep.Events(nil)
	cfg.Rejoin = tok
	cfg.Remote = p.remotes()
	if err := p.init(cfg, t, sim); err != nil {
		return err
	}
	*p.rj.restart.initial = initial
	*p.core.State() = initial
	for _, e := range events {
		p.ep.Push(e)
	}
	return nil
}

// send sends l the rejoin message m.
func (p *Session[S, I]) sendRejoin(l *link.Link, m wire.Rejoin) {
	m.Seq = l.Seq()
	p.ep.Send(l, m.Append(p.ep.Buffer()))
}

// askPump is the pump while asking to come back: only rejoin messages
// count, and every player peer gets a request every SyncRetry.
func (p *Session[S, I]) askPump() {
	for {
		l, typ, b, ok := p.ep.Receive()
		if !ok {
			break
		}
		if typ == wire.TypeRejoin && l != nil {
			p.handleRejoin(l, b)
		}
	}
	if p.rj.phase != phaseAsking || p.rj.refused != nil {
		return
	}
	t := p.ep.Time()
	if t-p.rj.askAt < p.ep.Settings().SyncRetry {
		return
	}
	p.rj.askAt = t
	for i, l := range p.ep.Links()[:p.nPlayers] {
		p.sendRejoin(l, p.rj.requestTo(i, p.local))
	}
}

// handleRejoin processes a Rejoin message from l (in any state: a
// disconnected player's link passes rejoin messages only).
func (p *Session[S, I]) handleRejoin(l *link.Link, b []byte) {
	m, _, err := wire.ParseRejoin(b)
	i := l.Index()
	if err != nil || i >= p.nPlayers {
		l.Malformed()
		return
	}
	r := &p.rj
	switch m.Kind {
	case wire.RejoinToken:
		if l.State() != link.Running || m.Players != l.Mask {
			l.Malformed()
			return
		}
		if !p.ep.Accept(l, m.Seq) {
			return
		}
		if !r.peers[i].heard {
			r.peers[i].heard, r.peers[i].share, r.peers[i].hash = true, m.Match, sha256Of(m.Secret)
			p.identityComplete()
		}
		p.sendRejoin(l, wire.Rejoin{Kind: wire.RejoinTokenAck, Match: m.Match})
	case wire.RejoinTokenAck:
		if l.State() == link.Running && m.Match == r.id.share && p.ep.Accept(l, m.Seq) {
			r.peers[i].tokAcked = true
		}
	case wire.RejoinRequest:
		p.rejoinRequest(l, &m)
	case wire.RejoinAccept:
		if r.phase == phaseAsking && m.Players == p.local && rollnet.Frame(m.Frame) > rollnet.Frame(p.delay) {
			if !r.id.known { // a late joiner learns the match id
				r.id.match, r.id.known = m.Match, true
			}
			p.accepted(i, rollnet.Frame(m.Frame), m.Frozen&^p.local&p.all)
		}
	case wire.RejoinRefuse:
		if r.phase == phaseAsking && int(m.Reason) < len(rejoinReasons) && m.Reason > 0 {
			r.refused = &RejoinError{Peer: l.Peer, Reason: rejoinReasons[m.Reason]}
		}
	case wire.RejoinAt:
		if l.State() != link.Running || r.phase == phaseAsking || !p.ep.Accept(l, m.Seq) {
			return
		}
		p.rejoinAt(l, &m)
	case wire.RejoinAtAck:
		if l.State() != link.Running || !p.ep.Accept(l, m.Seq) {
			return
		}
		if j, ok := p.linkOf(m.Players); ok && r.peers[j].atR == rollnet.Frame(m.Frame) {
			r.peers[j].atAcked |= 1 << i
		}
	}
}

// identityComplete sets the match id once every player peer's share
// arrived.
func (p *Session[S, I]) identityComplete() {
	r := &p.rj
	if r.id.known {
		return
	}
	id := r.id.share
	for i := range r.peers {
		h := r.peers[i].heard
		if r.peers[i].open && !h {
			continue // an open slot: not in the match id
		}
		if !h {
			return
		}
		id ^= r.peers[i].share
	}
	r.id.match, r.id.known = id, true
}

// linkOf returns the player link holding exactly the players of mask.
func (p *Session[S, I]) linkOf(mask uint64) (int, bool) {
	if mask == 0 || mask&^p.all != 0 {
		return 0, false
	}
	o := p.owner[bits.TrailingZeros64(mask)]
	if o < 0 || p.ep.Links()[o].Mask != mask {
		return 0, false
	}
	return o, true
}

// rejoinRequest answers a request from the peer of player link l to come
// back.
func (p *Session[S, I]) rejoinRequest(l *link.Link, m *wire.Rejoin) {
	r := &p.rj
	i := l.Index()
	if r.phase == phaseAsking || r.phase == phaseCatching {
		return // not in the match ourselves
	}
	t := p.ep.Time()
	n := p.ep.Settings()
	if t-r.peers[i].replyAt < n.SyncRetry/4 {
		return // at most four answers per retry period
	}
	refuse := func(why uint8) {
		r.peers[i].replyAt = t
		p.sendRejoin(l, wire.Rejoin{Kind: wire.RejoinRefuse, Reason: why})
	}
	// Anyone with the settings may take an open slot; the joiner taken
	// asks again until it plays (our answer was lost, or we learnt its R
	// from the sponsor first).
	open := r.openSlot(i) || r.joiner(i, m)
	if !open && (m.Players != l.Mask || !r.id.known || !r.peers[i].heard || !r.proves(i, m)) {
		l.Malformed()
		refuse(refuseIdentity)
		return
	}
	switch {
	case m.Players != l.Mask || !r.id.known:
		return // a joiner for another slot, or our identities are not all in yet
	case p.forfeit && !open:
		refuse(refuseForfeit)
		return
	case n.Rejoin < 0 && !open:
		refuse(refuseOff)
		return
	case l.State() == link.Disconnected && t-r.peers[i].goneAt > n.Rejoin && !open:
		refuse(refuseWindow)
		return
	}
	if r.peers[i].backR != rollnet.NoFrame {
		// Taken back already (our acceptance was lost, or it restarted
		// again): the same R.
		if r.peers[i].feeding || r.peers[i].atR != rollnet.NoFrame {
			r.peers[i].replyAt = t
			p.sendRejoin(l, wire.Rejoin{Kind: wire.RejoinAccept, Players: l.Mask, Frame: int32(r.peers[i].backR), Match: r.id.match,
				Frozen: r.peers[i].frozen})
		}
		return
	}
	if l.State() != link.Disconnected {
		// It proved who it is while its old link runs: that process is
		// gone (restarted before the timeout).
		p.ep.Disconnect(l)
		p.lost(l)
		return
	}
	if !p.sponsors(i) {
		return // the sponsor answers; we learn R from it
	}
	var frozen uint64
	for pl := range p.players {
		if !p.disc[pl] {
			continue
		}
		if p.frozenAt[pl] == rollnet.NoFrame {
			return // a freeze frame not agreed yet: it asks again
		}
		if l.Mask&(1<<pl) == 0 {
			frozen |= 1 << pl
		}
	}
	if !p.replayable() {
		refuse(refuseArchive)
		return
	}
	c := min(p.core.ConfirmedFrame(), p.core.Frame()-1)
	margin := p.maxPred + p.delay + n.FrameRate/2 + 2*feedTicks(int(c), l.RTT(), n.FrameRate) + 2
	rr := p.core.Frame() + rollnet.Frame(p.delay+margin)
	if a := p.awaitR(l); a != rollnet.NoFrame {
		rr = a // (AbsenceFreeze) every peer waits at a: it plays from there
	}
	r.peers[i].replyAt = t
	if r.openSlot(i) {
		p.takeJoiner(i, m.Secret)
	}
	p.adopt(i, rr)
	if r.peers[i].atR == rollnet.NoFrame {
		r.ats++
	}
	r.peers[i].atR, r.peers[i].atAcked = rr, 0
	r.peers[i].feeding = true
	r.peers[i].feed.start(rollnet.Frame(p.delay)-1, t)
	r.peers[i].frozen = frozen
	p.sendRejoin(p.ep.Links()[i], wire.Rejoin{Kind: wire.RejoinAccept, Players: l.Mask, Frame: int32(rr), Match: r.id.match, Frozen: frozen})
}

// sponsors reports whether this session decides the rejoin of player link
// i: it holds the lowest-numbered player still connected, outside link i.
func (p *Session[S, I]) sponsors(i int) bool {
	for pl := range p.players {
		if p.owner[pl] == i || p.disc[pl] {
			continue
		}
		return p.owner[pl] < 0
	}
	return false
}

// rejoinAt takes in the sponsor's word that the players of a link come
// back at R.
func (p *Session[S, I]) rejoinAt(from *link.Link, m *wire.Rejoin) {
	i, ok := p.linkOf(m.Players)
	if !ok || i == from.Index() || rollnet.Frame(m.Frame) <= rollnet.Frame(p.delay) {
		from.Malformed()
		return
	}
	rr := rollnet.Frame(m.Frame)
	ack := wire.Rejoin{Kind: wire.RejoinAtAck, Players: m.Players, Frame: m.Frame}
	if p.rj.back[bits.TrailingZeros64(m.Players)] == rr {
		p.sendRejoin(from, ack) // taken already: our ack was lost
		return
	}
	for mask := m.Players; mask != 0; mask &= mask - 1 {
		pl := bits.TrailingZeros64(mask)
		if p.frozenAt[pl] == rollnet.NoFrame || p.fed[pl] >= rr {
			// Not frozen here yet (the sponsor asks again), or the frozen
			// input was fed at R already, which the sponsor's limit on its
			// inputs rules out for an honest one.
			return
		}
	}
	if p.rj.openSlot(i) {
		p.takeJoiner(i, m.Secret)
	}
	p.adopt(i, rr)
	p.sendRejoin(from, ack)
}

// adopt takes the players of link i back from frame rr: a new link (the
// handshake runs again), the frozen input repeated up to rr-1, live inputs
// from rr.
func (p *Session[S, I]) adopt(i int, rr rollnet.Frame) {
	old := p.ep.Links()[i]
	l := link.New(old.Peer)
	l.Mask, l.Offer, l.Expect = old.Mask, old.Offer, old.Expect
	l.Optional = true // until it runs: a failed handshake does not fail the match
	p.ep.ReplaceLink(i, l)
	p.initLink(l)
	l.Acked, l.Sent = rr-1, rr-1
	r := &p.rj
	r.peers[i].backR, r.peers[i].pending, r.peers[i].tokAcked, r.peers[i].goneAt = rr, true, false, -1
	for mask := l.Mask; mask != 0; mask &= mask - 1 {
		pl := bits.TrailingZeros64(mask)
		r.back[pl], r.until[pl] = rr, rr
		p.disc[pl] = false
		p.recv[pl] = rr - 1
		for j := range p.status {
			p.status[j][pl] = wire.PeerStatus{Connected: true, LastFrame: int32(rr - 1)}
		}
		p.ep.Push(rollnet.Event{Kind: rollnet.EventPlayerRejoining, Player: pl, Frame: rr, Peer: l.Peer})
	}
	for pl := range p.players {
		p.status[i][pl] = wire.PeerStatus{Connected: true, LastFrame: int32(rr - 1)}
	}
}

// frozenDone ends player's frozen input once it was fed up to its R-1:
// from R its live inputs count.
func (p *Session[S, I]) frozenDone(pl int) {
	if u := p.rj.until[pl]; u != never && p.fed[pl] >= u-1 {
		p.frozenAt[pl] = rollnet.NoFrame
		p.rj.until[pl] = never
		p.unagreed = true // should the player be disconnected still
	}
}

// stale reports whether a peer's report that player is disconnected
// predates the player's latest rejoin (a peer that disconnects it after
// the rejoin reports a frame from R-1 on).
func (p *Session[S, I]) stale(pl int, s wire.PeerStatus) bool {
	b := p.rj.back[pl]
	return b != rollnet.NoFrame && rollnet.Frame(s.LastFrame) < b-1
}

// rejoinHeard notes the first live input from player link l, taken back
// (pending): it is back.
func (p *Session[S, I]) rejoinHeard(l *link.Link) {
	i := l.Index()
	p.rj.peers[i].pending = false
	p.rj.peers[i].feeding = false
	p.rj.peers[i].backR = rollnet.NoFrame
	for mask := l.Mask; mask != 0; mask &= mask - 1 {
		pl := bits.TrailingZeros64(mask)
		if p.awaiting&(1<<pl) != 0 {
			p.unawait(pl) // back: every peer resumes at its stop
		}
		p.ep.Push(rollnet.Event{Kind: rollnet.EventPlayerRejoined, Player: pl, Frame: p.rj.back[pl], Peer: l.Peer})
	}
}

// rejoinTick runs player link l's rejoin timers, once per pump.
func (p *Session[S, I]) rejoinTick(l *link.Link) {
	i := l.Index()
	r := &p.rj
	switch l.State() {
	case link.Disconnected:
		if r.peers[i].goneAt < 0 {
			r.peers[i].goneAt = p.ep.Time()
		}
	case link.Failed:
		if l.Optional { // taken back, and its handshake failed: gone again
			p.ep.Disconnect(l)
		}
	case link.Running:
		l.Optional = false
	}
}

// rejoinLimit is the newest frame of our inputs l may get now: below
// every R we sponsor that l has not acknowledged, by the prediction window
// and the input delay.
func (p *Session[S, I]) rejoinLimit(l *link.Link, start rollnet.Frame) int {
	n := math.MaxInt
	for j := range p.rj.peers {
		rr := p.rj.peers[j].atR
		if rr == rollnet.NoFrame || j == l.Index() || p.rj.peers[j].atAcked&(1<<l.Index()) != 0 {
			continue
		}
		n = min(n, int(rr-rollnet.Frame(p.maxPred+p.delay+2)-start+1))
	}
	return n
}

// rejoinFlush sends l the rejoin traffic it is owed this tick; it returns
// true when that takes the place of inputs (catching up, either side).
func (p *Session[S, I]) rejoinFlush(l *link.Link) bool {
	r := &p.rj
	i := l.Index()
	if r.phase == phaseCatching {
		if i == r.sponsor && r.catch.ackDue {
			r.catch.ackDue = false
			m := wire.InputAck{Seq: l.Seq(), Ack: int32(r.catch.caught)}
			p.ep.Send(l, m.Append(p.ep.Buffer()))
		}
		return true
	}
	if r.phase == phaseLive && i == r.sponsor && r.catch.ackDue {
		r.catch.ackDue = false // a feed datagram after the last ack got lost
		m := wire.InputAck{Seq: l.Seq(), Ack: int32(r.r - 1)}
		p.ep.Send(l, m.Append(p.ep.Buffer()))
	}
	if !r.peers[i].tokAcked && p.running && p.ep.QualityDue(l) {
		p.sendRejoin(l, wire.Rejoin{Kind: wire.RejoinToken, Players: p.local, Match: r.id.share, Secret: r.peers[i].key})
	}
	for j := range r.peers {
		rr := r.peers[j].atR
		if rr == rollnet.NoFrame || j == i {
			continue
		}
		if r.peers[j].atAcked&(1<<i) == 0 {
			p.sendRejoin(l, wire.Rejoin{Kind: wire.RejoinAt, Players: p.ep.Links()[j].Mask, Frame: int32(rr), Secret: r.peers[j].joiner})
		} else if p.atDone(j) {
			r.peers[j].atR = rollnet.NoFrame
			r.ats--
		}
	}
	if r.peers[i].feeding {
		p.feedCatchUp(l)
		return r.peers[i].pending
	}
	return false
}

// atDone reports whether every running player link but j acknowledged
// the R of j.
func (p *Session[S, I]) atDone(j int) bool {
	for k, l := range p.ep.Links()[:p.nPlayers] {
		if k != j && l.State() == link.Running && p.rj.peers[j].atAcked&(1<<k) == 0 {
			return false
		}
	}
	return true
}

// feedCatchUp sends rejoining link l the confirmed frames of [0, R) it
// has not acknowledged, in bulk (feed.go).
func (p *Session[S, I]) feedCatchUp(l *link.Link) {
	pr := &p.rj.peers[l.Index()]
	if pr.feed.ack >= pr.backR-1 {
		return
	}
	if !p.feedBulk(l, &pr.feed, min(p.core.ConfirmedFrame(), p.core.Frame()-1, pr.backR-1)) {
		p.ep.Disconnect(l) // no longer held: it cannot catch up
	}
}

// catchAck processes an InputAck from player link l: the catch-up frames
// it holds.
func (p *Session[S, I]) catchAck(l *link.Link, b []byte) {
	m, _, err := wire.ParseInputAck(b)
	pr := &p.rj.peers[l.Index()]
	if err != nil || !pr.feeding || rollnet.Frame(m.Ack) > pr.feed.high || rollnet.Frame(m.Ack) < rollnet.Frame(p.delay)-1 {
		l.Malformed()
		return
	}
	if !p.ep.Accept(l, m.Seq) {
		return
	}
	pr.feed.acked(rollnet.Frame(m.Ack), p.ep.Time())
}

// accepted starts catching up: sponsor link s took us back at rr, with
// the players of frozen gone (their input frozen) then.
func (p *Session[S, I]) accepted(s int, rr rollnet.Frame, frozen uint64) {
	r := &p.rj
	r.phase, r.r, r.sponsor, r.began = phaseCatching, rr, s, p.ep.Time()
	r.catch.caught = rollnet.Frame(p.delay) - 1
	r.stats.Frame = rr
	for i, old := range p.ep.Links()[:p.nPlayers] {
		if old.Mask&frozen == old.Mask {
			// Gone: its input repeats the one of R-1 (the replay shows
			// it) from R on; its link stays down.
			old.MarkGone()
			r.peers[i].gone = true
			for mask := old.Mask; mask != 0; mask &= mask - 1 {
				pl := bits.TrailingZeros64(mask)
				p.disc[pl], p.frozenAt[pl], r.until[pl] = true, rr-1, never
			}
			continue
		}
		for mask := old.Mask; mask != 0; mask &= mask - 1 {
			pl := bits.TrailingZeros64(mask) // playing (a slot open in our config may be taken)
			p.disc[pl], p.frozenAt[pl] = false, rollnet.NoFrame
		}
		l := link.New(old.Peer)
		l.Mask, l.Offer, l.Expect = old.Mask, old.Offer, old.Expect
		p.ep.ReplaceLink(i, l)
		p.initLink(l)
		l.Acked, l.Sent = rr-1, rr-1
		for pl := range p.players {
			p.status[i][pl] = wire.PeerStatus{Connected: true, LastFrame: int32(rr - 1)}
		}
	}
	for pl := range p.players {
		if p.owner[pl] >= 0 {
			p.recv[pl] = rr - 1
		} else {
			p.ep.Push(rollnet.Event{Kind: rollnet.EventPlayerRejoining, Player: pl, Frame: rr})
		}
	}
	p.newest = rr - 1
}

// catchInput takes a catch-up datagram (every player's inputs) from our
// sponsor; it returns false for anything else (a peer's live inputs).
func (p *Session[S, I]) catchInput(l *link.Link, b []byte) bool {
	r := &p.rj
	if l.Index() != r.sponsor || r.catch.in == nil {
		return false
	}
	m := wire.Input{Size: p.size}
	if _, err := wire.ParseInput(b, &m, r.catch.in, p.inStat); err != nil || m.Players != p.all || m.Players == l.Mask {
		return false
	}
	if !p.ep.Accept(l, m.Seq) {
		return true
	}
	r.catch.ackDue = true
	if r.phase != phaseCatching {
		return true
	}
	stride := p.players * p.size
	var in I
	// Datagrams of one burst arrive in any order: every frame of the
	// window is kept, and caught advances over those held contiguously.
	for k := range m.Frames {
		f := rollnet.Frame(m.Start) + rollnet.Frame(k)
		if f <= r.catch.caught {
			continue
		}
		if f >= r.r || f >= p.core.Frame()+catchFrames {
			break
		}
		row := m.Inputs[k*stride : (k+1)*stride]
		for j := 0; j < stride; j += p.size {
			if p.codec.Decode(row[j:j+p.size], &in) != nil {
				l.Malformed()
				return true
			}
		}
		r.catch.hold(f, row)
	}
	r.catch.extend(r.r)
	return true
}

// catchUp is AdvanceFrame while rejoining: replay what arrived, up to
// catchSteps frames, and play from R once every frame before it is in.
func (p *Session[S, I]) catchUp() error {
	r := &p.rj
	defer p.flush()
	if r.refused != nil {
		return r.refused
	}
	if r.phase == phaseAsking || !p.running {
		return ErrRejoining
	}
	stride := p.players * p.size
	steps := 0
	for p.core.Frame() < r.r-rollnet.Frame(p.delay) && p.core.Frame() <= r.catch.caught && steps < catchSteps {
		f := p.core.Frame()
		if f >= rollnet.Frame(p.delay) {
			p.catchFeed(f, stride)
		}
		if err := p.core.AdvanceFrame(); err != nil {
			return err
		}
		steps++
		p.checksums()
		if len(p.archive.rows) > 0 {
			p.archiveConfirmed()
		}
	}
	r.stats.Replayed += steps
	if p.core.Frame() < r.r-rollnet.Frame(p.delay) || r.catch.caught < r.r-1 {
		return ErrRejoining
	}
	if p.absence == rollnet.AbsenceFreeze && !p.heardLive() {
		return ErrRejoining // the peers wait for us: play once each of them can hear us
	}
	// Every frame before R is in: the frames from R-InputDelay on are
	// simulated live, with the inputs below R given now.
	for f := max(r.r-rollnet.Frame(p.delay), rollnet.Frame(p.delay)); f < r.r; f++ {
		p.catchFeed(f, stride)
	}
	for pl := range p.players {
		p.recv[pl], p.fed[pl] = r.r-1, r.r-1
		if p.disc[pl] { // gone: the input it had at R-1 repeats
			var in I
			row := r.catch.row(r.r - 1)
			copy(rollback.BytesOf(&in), row[pl*p.size:(pl+1)*p.size])
			p.frozen[pl] = in
		}
	}
	r.phase = phaseLive
	r.stats.CatchUp = time.Duration(p.ep.Time() - r.began)
	for pl := range p.players {
		if p.owner[pl] < 0 {
			p.ep.Push(rollnet.Event{Kind: rollnet.EventPlayerRejoined, Player: pl, Frame: r.r})
		}
	}
	return ErrRejoining
}

// heardLive reports whether every player peer but the sponsor (whose
// feed shows its link runs) sent us live inputs while we caught up: its
// handshake with us is complete on its side too, so our first live input
// reaches it and ends its wait (AbsenceFreeze) a one-way trip later.
func (p *Session[S, I]) heardLive() bool {
	for i, l := range p.ep.Links()[:p.nPlayers] {
		if i != p.rj.sponsor && l.State() == link.Running && p.rj.live&(1<<i) == 0 {
			return false
		}
	}
	return true
}

// catchFeed gives the core every player's catch-up input of frame f.
func (p *Session[S, I]) catchFeed(f rollnet.Frame, stride int) {
	row := p.rj.catch.row(f)
	for pl := range p.players {
		b := row[pl*p.size : (pl+1)*p.size]
		var in I
		copy(rollback.BytesOf(&in), b)
		_ = p.core.AddRemoteInput(pl, f, in)
		p.hist.put(f, pl, b)
	}
}
