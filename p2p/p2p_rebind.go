package p2p

// Rebind: a player's identity is its rejoin secret, not its address.
//
// A player that comes back may do so from an address no peer knows: a
// restarted process gets a new signaling id over WebRTC, a phone that
// moved from Wi-Fi to mobile data a new address. While a slot can be
// taken (a player link disconnected within NetConfig.RejoinWindow, or
// silent past DisconnectNotify; a player taken back whose first live
// input has not arrived; an open slot), the session admits strangers:
// its transport receives anyone's datagrams (transport.Expecter's
// ExpectAnyone), and the endpoint hands it the Rejoin packets of senders
// it has no link to, with their address. Every other packet from a
// stranger is counted (Unknown) and dropped, as always.
//
// A stranger's RejoinRequest that names a player link (Players) and
// proves its identity (the match id and the key that player gave us at
// the start, checked by its hash in constant time), or names an open
// slot no one took yet, moves that link to the stranger's address
// (link.Endpoint.Rebind: the old address is forgotten, and unknown from
// then on) and is answered as if it came from the link, but never while
// the link runs and its owner is heard (a valid packet from its address
// within DisconnectNotify): such a request is dropped unanswered. A link
// still running, silent, when its player proves itself from elsewhere is
// disconnected first: that process is gone. A request that proves nothing changes
// nothing: it is counted in Unknown (not in a link's Malformed: a stranger
// is no link's peer) and answered by a refusal (wrong match id or secret), at
// most four per SyncRetry for all strangers together, so a flood gets
// bounded replies and costs no memory.
//
// Every player peer rebinds on its own proof, not only the sponsor: the
// player coming back asks every player peer (each SyncRetry) until it is
// accepted, and then keeps asking every peer whose link has not completed
// its handshake, but its sponsor, until it has, so a peer that lost the
// first request still learns the new address.

import (
	"crypto/sha256"
	"crypto/subtle"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/link"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/transport"
)

// proves reports, in constant time, whether m carries the match id and
// the secret of player link i.
func (r *rejoiner[S, I]) proves(i int, m *wire.Rejoin) bool { return r.id.proves(&r.peers[i].hash, m) }

// joiner reports whether m comes from the joiner taken into open slot i
// that has not played (nor sent its token) yet: it carries the secret the
// joiner asked with (a joiner learns the match id only when accepted).
func (r *rejoiner[S, I]) joiner(i int, m *wire.Rejoin) bool {
	if r.peers == nil || !r.peers[i].open || !r.peers[i].pending || r.peers[i].heard {
		return false
	}
	h := sha256.Sum256(m.Secret[:])
	return subtle.ConstantTimeCompare(h[:], r.peers[i].hash[:]) == 1
}

// takeJoiner notes the secret of the joiner taken into the open slot of
// player link i (by us, the sponsor, or by the sponsor's At): only it may
// ask for the slot again, from any address, until its token comes.
func (p *Session[S, I]) takeJoiner(i int, secret [wire.SecretLen]byte) {
	p.rj.peers[i].joiner, p.rj.peers[i].hash = secret, sha256Of(secret)
}

// rebindGate is the door strangers come in by: open while a slot can be
// taken (its owner decides, per player link, with takeable), shut
// otherwise, and the refusals strangers get through it, at most four per
// SyncRetry for all of them. The zero value is shut, with no refusal yet.
type rebindGate struct {
	open      bool  // strangers' Rejoin packets are let in
	refusedAt int64 // when a stranger was last refused
}

// set opens or shuts the gate on e.
func (g *rebindGate) set(e *link.Endpoint, open bool) {
	g.open = open
	if open != e.StrangersAdmitted() { // the call skipped on every frame it stays as it was
		e.AdmitStrangers(open)
	}
}

// refuse reports whether a stranger may be answered a refusal at now,
// with retry the endpoint's SyncRetry, and notes it when so.
func (g *rebindGate) refuse(now, retry int64) bool {
	if now-g.refusedAt < retry/4 {
		return false
	}
	g.refusedAt = now
	return true
}

// takeable reports whether a player may come back, or join, into the
// slot of player link l (pr its part in rejoins) now, this session not
// rejoining itself. The pump tests first, inline, what holds on every
// frame of a match nobody rejoins (a player playing and heard, pr and l
// idle), and calls it only when that fails.
func (p *Session[S, I]) takeable(pr *peerRejoin, l *link.Link) bool {
	if pr.pending || pr.open && !pr.heard && pr.backR == rollnet.NoFrame {
		return true // an open slot, or a player taken back not playing yet
	}
	switch l.State() {
	case link.Running:
		// A restarted process asks from its new address before the timeout.
		return l.Interrupted() && p.ep.Settings().Rejoin >= 0
	case link.Disconnected:
		n := p.ep.Settings()
		return n.Rejoin >= 0 && (pr.goneAt < 0 || p.ep.Time()-pr.goneAt <= n.Rejoin)
	}
	return false
}

// stranger answers a Rejoin packet from an address with no link.
func (p *Session[S, I]) stranger(b []byte) {
	r := &p.rj
	m, _, err := wire.ParseRejoin(b)
	if err != nil || m.Kind != wire.RejoinRequest || p.rejoining() {
		p.ep.RefuseStranger()
		return
	}
	i, ok := p.linkOf(m.Players)
	if !ok || !(r.openSlot(i) || r.joiner(i, &m) || r.id.known && r.peers[i].heard && r.proves(i, &m)) {
		p.ep.RefuseStranger()
		p.refuseStranger()
		return
	}
	l := p.ep.Links()[i]
	if l.State() == link.Running && !l.Interrupted() {
		// Its owner is heard (a valid packet from the link's address within
		// DisconnectNotify): the slot is not free, whatever the proof. No
		// refusal: a process restarted elsewhere asks again, and is taken
		// once its old address fell silent.
		p.ep.RefuseStranger()
		return
	}
	if l.State() == link.Running && !r.peers[i].pending {
		// It proved who it is from elsewhere while its old link runs: that
		// process is gone (restarted before the timeout).
		p.ep.Disconnect(l)
		p.lost(l)
		r.peers[i].goneAt = p.ep.Time()
	}
	if p.ep.Rebind(i, p.ep.From()) != nil {
		p.ep.RefuseStranger() // our own address: forged
		return
	}
	if r.peers[i].pending && l.State() != link.Disconnected {
		// Taken back, and asking again from elsewhere before it played
		// while its link lives: a new process, starting over at the same
		// R. (A link that died is frozen again, see TestP2PRejoinDiesAgain.)
		p.renew(i)
	}
	p.rejoinRequest(p.ep.Links()[i], &m)
}

// renew takes player link i, taken back at R and not playing yet, back
// again at the same R from a new process: a new link (a new handshake)
// and, if we sponsor it, the catch-up fed from the start.
func (p *Session[S, I]) renew(i int) {
	pr := &p.rj.peers[i]
	p.adopt(i, pr.backR)
	if pr.feeding {
		pr.feed.start(rollnet.Frame(p.delay)-1, p.ep.Time())
	}
}

// refuseStranger tells the stranger of the packet just received that it
// is not who it claims, at most four times per SyncRetry for all
// strangers.
func (p *Session[S, I]) refuseStranger() {
	if !p.gate.refuse(p.ep.Time(), p.ep.Settings().SyncRetry) {
		return
	}
	m := wire.Rejoin{Kind: wire.RejoinRefuse, Reason: refuseIdentity}
	_ = p.ep.SendTo(p.ep.From(), m.Append(p.ep.Buffer()))
}

// askAgain, while we catch up, asks every player peer whose link has not
// completed its handshake, but our sponsor, to take us back, every
// SyncRetry: one that lost our first request learns our address from it
// (the sponsor knows it: it answered).
func (p *Session[S, I]) askAgain() {
	r := &p.rj
	if r.phase != phaseCatching {
		return
	}
	t := p.ep.Time()
	if t-r.askAt < p.ep.Settings().SyncRetry {
		return
	}
	r.askAt = t
	for i, l := range p.ep.Links()[:p.nPlayers] {
		if i == r.sponsor || r.peers[i].gone || l.State() != link.Syncing {
			continue
		}
		p.sendRejoin(l, r.requestTo(i, p.local))
	}
}

// UnknownPackets counts the datagrams this session dropped because their sender
// has no link here (a transport.Expecter drops most before, and counts
// them itself), the rejoin requests from new addresses that proved
// nothing included.
func (p *Session[S, I]) UnknownPackets() uint64 { return p.ep.Unknown() }

// remotes is Config.Remote with every player's peer at the address its
// link has now (which a rejoin may have moved).
func (p *Session[S, I]) remotes() []transport.Peer {
	remote := make([]transport.Peer, p.players)
	for pl, o := range p.owner {
		if o >= 0 {
			remote[pl] = p.ep.Links()[o].Peer
		}
	}
	return remote
}
