package netplay

import (
	"cmp"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/greeting"
	"github.com/rollnet/rollnet/p2p"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
)

// p2pDriver is a P2P player's (Join): it seats the room's players, or
// rejoins its stored seat, and runs a p2p.Session.
type p2pDriver[S any, I comparable] struct {
	m         *Match[S, I]
	p         *p2p.Session[S, I] // nil until seated
	remote    []transport.Peer   // the seats' peers as the session was built
	seatPeers []transport.Peer   // remoteSeats' buffer
	seatStats []rollnet.PeerStats
	retired   rollnet.PeerStats // the links seats had before their players came back
	roster    []greeting.RosterEntry
	quit      [p2pSeats]bool // seats whose player quit (said so) rather than vanished: no rejoin is waited for
}

func newP2P[S any, I comparable](m *Match[S, I], _ bool) driver[S, I] { return &p2pDriver[S, I]{m: m} }

func (d *p2pDriver[S, I]) mode() Mode { return ModeP2P }

func (d *p2pDriver[S, I]) greetsAs() greeting.Role {
	if d.m.tok.rejoining && d.p == nil {
		return greeting.RoleRejoiner
	}
	return greeting.RolePlayer
}

func (d *p2pDriver[S, I]) awaits() string { return "the other players" }
func (d *p2pDriver[S, I]) built() bool    { return d.p != nil }

// check refuses, while seating, a host's room and other settings; clients
// and spectators check the players themselves.
func (d *p2pDriver[S, I]) check(pe *peer) error { return checkP2PRoom(d.m, pe, d.p != nil) }

// checkP2PRoom is a P2P player's or spectator's check (driver.check).
// The peers earlier in the room than this one (Match.earlier) are
// matched with it: a host among them, or a player of other settings,
// fails it. A later peer that claims to be a host is a stranger (it is in
// the wrong room and fails itself); a later player's settings are judged
// by the P2P driver's seating, once it is known whether the player has a
// seat.
func checkP2PRoom[S any, I comparable](m *Match[S, I], pe *peer, built bool) error {
	if built || pe.stranger {
		return nil
	}
	switch pe.h.Role {
	case greeting.RoleHost:
		if !m.earlier(pe.id) {
			m.strange(pe)
			return nil
		}
		return fmt.Errorf("%w: %s %q is %v", ErrAuthorityRoom, pe.id, pe.h.Name, pe.h.Role)
	case greeting.RoleClient, greeting.RoleSpectator:
		return nil // they check the players
	}
	if !m.earlier(pe.id) {
		return nil
	}
	return m.checkSettings(pe)
}

func (d *p2pDriver[S, I]) admit(pe *peer) {
	d.m.seatName(pe)
	if d.p != nil && d.m.seat == 0 && pe.h.Role == greeting.RoleSpectator && !pe.added {
		if err := d.p.AddSpectator(pe.id); err == nil {
			pe.added = true
		}
	}
}

func (d *p2pDriver[S, I]) connect() error {
	if d.m.tok.rejoining {
		return d.tryRejoin()
	}
	return d.tryJoin()
}

// tryJoin seats the room's players once every one of them is heard with
// its input delay proposal: seats by sorted transport id, the delay the
// largest proposal.
//
// The players are the first of the room in its order of arrival: those
// that were there when this one joined (or Config.Peers), this one, then
// as many of those that came later (in the room's order, transport.Arrivals,
// else the order their hellos came) as there are seats left. This player
// is matched with them alone: a later peer past the seats, or one that
// says it is a host, is a stranger (strange), whatever it claims; one of
// other settings within the seats fails this player (ErrSettings), as an
// earlier one does. With more earlier players than seats this player is
// the one too many (ErrRoomFull, or ErrMatchStarted when they play).
func (d *p2pDriver[S, I]) tryJoin() error {
	m := d.m
	me := m.link.tr.Local()
	players := []transport.Peer{me}
	started := 0
	for _, id := range append(slices.Clip(m.link.atJoin), m.cfg.Peers...) {
		pe := m.peers.byID[id]
		if pe == nil || !pe.heard {
			if slices.Contains(m.link.atJoin, id) {
				return nil // a third player must see the two playing before it seats anyone
			}
			continue // named by Config.Peers: counted once heard
		}
		if pe.h.Role != greeting.RolePlayer || slices.Contains(players, id) {
			continue
		}
		players = append(players, id)
		if pe.h.Flags&greeting.FlagStarted != 0 {
			started++
		}
	}
	m.st.Have = len(players)
	switch {
	case started >= m.cfg.Players:
		return fmt.Errorf("%w (room %q, %d players playing)", ErrMatchStarted, m.link.room, started)
	case len(players) > m.cfg.Players:
		return fmt.Errorf("%w (room %q: %d players for %d seats)", ErrRoomFull, m.link.room, len(players), m.cfg.Players)
	}
	for _, pe := range m.later() {
		switch {
		case pe.stranger:
			continue
		case len(players) < m.cfg.Players && !pe.heard:
			return nil // a member that came before the next seat's player: wait for its hello
		case !pe.heard || pe.h.Role == greeting.RoleClient || pe.h.Role == greeting.RoleSpectator || pe.h.Role == greeting.RoleRejoiner:
			continue // the match's to check: they check the players (a rejoiner, the seats it names)
		case pe.h.Role != greeting.RolePlayer || len(players) == m.cfg.Players:
			m.strange(pe) // a host, or a player past the seats
			continue
		}
		if err := m.checkSettings(pe); err != nil {
			return err
		}
		players = append(players, pe.id)
	}
	m.st.Have = len(players)
	if len(players) < m.cfg.Players {
		return nil
	}
	if m.proposal == 0 {
		var rtt = m.st.RTT
		for _, id := range players[1:] {
			med, ok := m.peers.byID[id].rtt.median()
			if !ok {
				return nil
			}
			rtt = max(rtt, med)
		}
		m.st.RTT = rtt
		m.proposal = delayFor(rtt, m.cfg.FrameRate, m.cfg.InputDelay) + 1
		m.peers.nextGreet = m.cfg.Now() // tell them at once
		return nil
	}
	delay := m.proposal
	for _, id := range players[1:] {
		dl := int(m.peers.byID[id].h.Delay)
		if dl == 0 {
			return nil // still measuring
		}
		delay = max(delay, dl)
	}
	seats := slices.Clone(players)
	slices.Sort(seats)
	remote := make([]transport.Peer, m.cfg.Players)
	for i, id := range seats {
		if id == me {
			m.seat = i
		} else {
			remote[i] = id
		}
	}
	return d.build(remote, delay-1, rollnet.RejoinToken{})
}

// tryRejoin comes back into the seat of the stored token once every other
// seat's player is heard.
func (d *p2pDriver[S, I]) tryRejoin() error {
	m := d.m
	remote := make([]transport.Peer, m.cfg.Players)
	n, delay := 0, -1
	for _, pe := range m.peers.order {
		h := pe.h
		if !pe.heard || h.Role != greeting.RolePlayer || h.Flags&greeting.FlagStarted == 0 || h.Seat == greeting.NoSeat {
			continue
		}
		s := int(h.Seat)
		if s >= m.cfg.Players || s == m.tok.t.Seat || remote[s] != "" {
			continue
		}
		remote[s], delay = pe.id, int(h.Delay)-1
		n++
	}
	m.st.Have = n + 1
	if n < m.cfg.Players-1 || delay < 0 {
		return nil
	}
	m.seat = m.tok.t.Seat
	return d.build(remote, delay, m.tok.t.Rejoin)
}

func (d *p2pDriver[S, I]) build(remote []transport.Peer, delay int, tok rollnet.RejoinToken) error {
	m := d.m
	m.delay, d.remote = delay, remote
	pc := p2p.Config[I]{
		Session:          session.Config[I]{Players: m.cfg.Players, InputDelay: delay, Capacity: capacity},
		Remote:           remote,
		SpectatorArchive: m.cfg.Tuning.Archive,
		Rejoin:           tok,
		Net:              m.netConfig(),
		Absence:          m.cfg.Absence,
		NoRepair:         m.cfg.NoRepair,
	}
	if b := m.cfg.InputDelay; b.Follow && b.Min < b.Max {
		pc.MinInputDelay, pc.MaxInputDelay = b.Min, b.Max
	}
	p, err := p2p.New[S](pc, &m.link.mx, m.simulate)
	if err != nil {
		return fmt.Errorf("netplay: %w", err)
	}
	d.p = p
	d.seatStats = make([]rollnet.PeerStats, m.cfg.Players)
	return m.started(Synchronizing)
}

func (d *p2pDriver[S, I]) tick(in I, now time.Time) error {
	m, p := d.m, d.p
	var err error
	waited := p.WaitRecommendation() > 0
	if waited {
		err = p.Poll()
	} else if err = p.AddLocalInput(m.seat, in); err == nil || errors.Is(err, p2p.ErrNotSynchronized) {
		err = p.AdvanceFrame()
	}
	m.st.Waiting = ""
	switch {
	case err == nil:
		m.st.Phase = Running
		m.st.Advanced = !waited
	case errors.Is(err, p2p.ErrRejoining):
		m.st.Phase = Rejoining
		rs := p.RejoinStats()
		m.st.Done, m.st.Total = int(p.Frame()), int(p.Frame())
		if rs.Frame != rollnet.NoFrame {
			m.st.Total = int(rs.Frame)
		}
	case errors.Is(err, p2p.ErrNotSynchronized):
		m.st.Phase = Synchronizing
	case errors.Is(err, session.ErrPredictionLimit):
		m.st.Phase = Running
		m.st.Waiting = d.laggard()
	case errors.Is(err, p2p.ErrAwaiting):
		m.st.Phase = Running
		m.st.Waiting = m.st.Awaiting
	case errors.Is(err, p2p.ErrForfeited):
		m.st.Phase, m.st.Ended = Ended, EndForfeit
	default:
		var re *p2p.RejoinError
		if errors.As(err, &re) {
			if m.cfg.Tokens != nil {
				_ = m.cfg.Tokens.Delete(m.cfg.Room)
			}
			return fmt.Errorf("%w: %w", ErrRejoinRefused, err)
		}
		return err
	}
	m.evs = p.Events(m.evs[:0])
	d.events()
	m.st.Awaiting, m.st.AwaitedAt, m.st.AwaitedFor = "", rollnet.NoFrame, 0
	if players, at, since := p.Awaited(); players != 0 {
		m.st.Awaiting, m.st.AwaitedAt, m.st.AwaitedFor = m.seatLabel(bits.TrailingZeros64(players)), at, since
	}
	m.st.RTT, m.st.FrameAdvantage, m.st.Rollbacks = 0, 0, p.Stats().Rollbacks
	left := 0
	for s, id := range d.remoteSeats() {
		if m.gone[s] {
			left++
		}
		if id == "" || m.gone[s] {
			continue // a player gone has no stats to ask for (the asking allocates an error)
		}
		if ps, err := p.PeerStats(id); err == nil {
			m.st.RTT = max(m.st.RTT, ps.RTT)
			m.st.FrameAdvantage = max(m.st.FrameAdvantage, ps.LocalFrameAdvantage)
			if old := d.seatStats[s]; old.Peer != id && old.Peer != "" { // it rejoined from elsewhere
				d.retired.BytesSent += old.BytesSent
				d.retired.BytesReceived += old.BytesReceived
				d.retired.ChecksumsCompared += old.ChecksumsCompared
				d.retired.ChecksumsAgreed += old.ChecksumsAgreed
			}
			ps.Peer = id
			d.seatStats[s] = ps
		}
	}
	if left == m.cfg.Players-1 && !now.Before(m.until.away) {
		m.st.Phase, m.st.Ended = Ended, EndPlayersLeft
		if m.story.dropped != "" {
			m.tell("%s did not rejoin within %v", m.story.dropped, cmp.Or(m.cfg.Tuning.Net.RejoinWindow, p2p.DefaultRejoinWindow))
		}
	}
	if m.seat == 0 && p.Frame()%rollnet.Frame(m.cfg.FrameRate/4+1) == 0 {
		d.sendRoster() // the spectators' names and who is away
	}
	return nil
}

// events folds the session's events: its spectators', its seats' players
// leaving, this player's own rejoin, and what every mode folds.
func (d *p2pDriver[S, I]) events() {
	m := d.m
	f := d.p.Frame()
	for _, ev := range m.evs {
		pe := m.peers.byID[ev.Peer]
		spectator := pe != nil && pe.h.Role == greeting.RoleSpectator
		switch {
		case ev.Kind == rollnet.EventSynchronized && spectator:
			m.story.spectators++
			m.tell("spectator %s joined at frame %d (replays from frame 0)", m.nameOf(ev.Peer), f)
		case ev.Kind == rollnet.EventSyncFailed && spectator:
			m.tell("spectator %s failed its handshake at frame %d: %s", m.nameOf(ev.Peer), f, ev.Reason)
		case ev.Kind == rollnet.EventDisconnected:
			m.resumed(ev)
			switch {
			case spectator:
				m.tell("spectator %s left at frame %d", m.nameOf(ev.Peer), f)
			case pe != nil && pe.h.Seat != greeting.NoSeat && int(pe.h.Seat) < m.cfg.Players && d.remoteSeats()[pe.h.Seat] == ev.Peer:
				then := ""
				_, vanished := m.story.silent[ev.Peer]
				d.quit[pe.h.Seat] = !vanished // one that quit deleted its token: it will not be back
				if m.cfg.Tuning.Net.RejoinWindow >= 0 && vanished {
					w := cmp.Or(m.cfg.Tuning.Net.RejoinWindow, p2p.DefaultRejoinWindow)
					then = fmt.Sprintf(": may rejoin for %d s", int(w/time.Second))
					m.story.dropped = m.nameOf(ev.Peer)
				}
				m.left(ev.Peer, m.nameOf(ev.Peer), f, then)
			}
		case ev.Kind == rollnet.EventPlayerDisconnected:
			var w time.Duration
			if m.cfg.Tuning.Net.RejoinWindow >= 0 && (ev.Player < 0 || ev.Player >= len(d.quit) || !d.quit[ev.Player]) {
				w = cmp.Or(m.cfg.Tuning.Net.RejoinWindow, p2p.DefaultRejoinWindow)
			}
			m.away(ev, w)
		case ev.Kind == rollnet.EventPlayerAwaited:
			m.tell("waiting at frame %d for %s to come back (Absence freeze)", ev.Frame, m.seatLabel(ev.Player))
		case ev.Kind == rollnet.EventPlayerDropped:
			m.tell("%s did not come back in time: the match resumes at frame %d without them", m.seatLabel(ev.Player), ev.Frame)
		case ev.Kind == rollnet.EventDelayChanged:
			m.delayChanged(ev)
		case ev.Kind == rollnet.EventPlayerForfeited:
			m.tell("%s forfeited by leaving: the match stops at frame %d", m.seatLabel(ev.Player), ev.Frame)
			m.st.Away = m.seatLabel(ev.Player)
		case ev.Kind == rollnet.EventPlayerRejoined && ev.Player == m.seat:
			if m.back(ev) {
				rs := d.p.RejoinStats()
				m.tell("rejoined at frame %d: replayed %d frames in %v", ev.Frame, rs.Replayed, rs.CatchUp.Round(time.Millisecond))
			}
		default:
			if ev.Kind == rollnet.EventPlayerRejoined && ev.Player >= 0 && ev.Player < len(d.quit) {
				d.quit[ev.Player] = false
			}
			m.foldEvent(ev, f)
		}
	}
}

// sendRoster sends the seats' names and states to the spectators.
func (d *p2pDriver[S, I]) sendRoster() {
	m := d.m
	if d.roster == nil {
		d.roster = make([]greeting.RosterEntry, m.cfg.Players)
	}
	back := m.backSeconds()
	for i, n := range m.names {
		d.roster[i] = greeting.RosterEntry{State: 1, Name: n}
		if m.gone[i] {
			d.roster[i].State, d.roster[i].Back = 2, back
		}
	}
	m.sendRoster(greeting.RoleSpectator, d.roster)
}

// remoteSeats is the peer of each seat ("" for this one), from the hellos.
func (d *p2pDriver[S, I]) remoteSeats() []transport.Peer {
	m := d.m
	if len(d.seatPeers) != m.cfg.Players {
		d.seatPeers = make([]transport.Peer, m.cfg.Players)
	}
	out := d.seatPeers
	clear(out)
	for _, pe := range m.peers.order {
		if pe.heard && pe.h.Role == greeting.RolePlayer && pe.h.Seat != greeting.NoSeat && int(pe.h.Seat) < len(out) && int(pe.h.Seat) != m.seat {
			out[pe.h.Seat] = pe.id
		}
	}
	return out
}

// laggard names the player a tick waited for: one interrupted, else the
// first other one still playing.
func (d *p2pDriver[S, I]) laggard() string {
	m := d.m
	if m.st.Interrupted != "" {
		return m.st.Interrupted
	}
	for s, id := range d.remoteSeats() {
		if id != "" && !m.gone[s] {
			return m.names[s]
		}
	}
	return ""
}

func (d *p2pDriver[S, I]) state() *S            { return d.p.State() }
func (d *p2pDriver[S, I]) frame() rollnet.Frame { return d.p.Frame() }

func (d *p2pDriver[S, I]) playout() (a, b *S, alpha float64, ok bool) {
	s := d.p.State()
	return s, s, 0, true
}

func (d *p2pDriver[S, I]) checksum() (rollnet.Frame, uint32, bool) {
	frame := min(d.p.ConfirmedFrame(), d.p.Frame()-1)
	s, err := d.p.ChecksumAt(frame)
	return frame, s, err == nil
}

// errUnconfirmed: ChecksumAt of a P2P frame that every player's inputs do
// not confirm yet (its state may still be rolled back).
var errUnconfirmed = fmt.Errorf("%w: netplay: the frame's inputs are not all confirmed", session.ErrNotConfirmed)

func (d *p2pDriver[S, I]) checksumAt(frame rollnet.Frame) (uint32, error) {
	s, err := d.p.ChecksumAt(frame)
	if err == nil && frame > d.p.ConfirmedFrame() {
		return 0, errUnconfirmed
	}
	return s, err
}

func (d *p2pDriver[S, I]) stats(s Stats) (Stats, transport.Peer) {
	var far transport.Peer
	st := d.p.Stats()
	s.Rollbacks, s.Resimulated, s.DeepestRollback = uint64(st.Rollbacks), uint64(st.ResimulatedFrames), st.MaxRollbackDepth
	s.InputDelay, s.DelayChanges = d.m.inputDelay(), d.m.story.delayChanges
	sumLink(&s, &far, d.retired)     // the links of players who came back from elsewhere
	for _, ps := range d.seatStats { // as the last tick read them: a player gone keeps its counts
		sumLink(&s, &far, ps)
	}
	return s, far
}

func (d *p2pDriver[S, I]) token() (Token, bool) {
	if t, ok := d.p.RejoinToken(); ok {
		return Token{Mode: ModeP2P, Room: d.m.cfg.Room, Seat: d.m.seat, Rejoin: t}, true
	}
	return Token{}, false
}

func (d *p2pDriver[S, I]) seatOf(pe *peer, _ transport.Peer) int { return helloSeat(pe) }

func (d *p2pDriver[S, I]) seatPeer(seat int) transport.Peer {
	if id := d.remoteSeats()[seat]; id != "" {
		return id // from its hello: where a rejoiner came back from
	}
	if seat < len(d.remote) {
		return d.remote[seat]
	}
	return ""
}

func (d *p2pDriver[S, I]) rosterFrom() transport.Peer { return "" }
func (d *p2pDriver[S, I]) parseRoster(b []byte) error { return nil }

func (d *p2pDriver[S, I]) close() {
	if d.p != nil {
		_ = d.p.Close()
	}
}

func (d *p2pDriver[S, I]) sessions() sessions[S, I] { return sessions[S, I]{p: d.p} }
