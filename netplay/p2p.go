package netplay

import (
	"cmp"
	"errors"
	"fmt"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/p2p"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
)

func (m *Match[S, I]) netConfig() rollnet.NetConfig {
	n := m.cfg.Net
	n.FrameRate, n.Settings, n.Now = m.cfg.FrameRate, m.cfg.Settings, m.cfg.Now
	return n
}

// tryJoin seats the room's players once every one of them is heard with
// its input delay proposal: seats by sorted transport id, the delay the
// largest proposal.
func (m *Match[S, I]) tryJoin() error {
	me := m.tr.Local()
	players := []transport.Peer{me}
	started := 0
	for _, pe := range m.sortedPeers() {
		if pe.heard && pe.h.Role == rolePlayer {
			players = append(players, pe.id)
			if pe.h.Flags&flagStarted != 0 {
				started++
			}
		}
	}
	m.st.Have = len(players)
	switch {
	case started >= m.cfg.Players:
		return fmt.Errorf("%w (room %q, %d players playing)", ErrMatchStarted, m.room, started)
	case len(players) > m.cfg.Players:
		return fmt.Errorf("%w (room %q: %d players for %d seats)", ErrRoomFull, m.room, len(players), m.cfg.Players)
	case len(players) < m.cfg.Players:
		return nil
	}
	// Every peer in the room (and every one connected) heard first: a
	// third player must see the two playing before it seats anyone.
	for _, id := range m.list[:m.connected] {
		if pe := m.peers[id]; pe == nil || !pe.heard {
			return nil
		}
	}
	if m.sig != nil {
		for _, id := range m.sig.Peers() {
			if pe := m.peers[transport.Peer(id)]; pe == nil || !pe.heard {
				return nil
			}
		}
	}
	if m.proposal == 0 {
		var rtt = m.st.RTT
		for _, id := range players[1:] {
			med, ok := m.peers[id].rtt.median()
			if !ok {
				return nil
			}
			rtt = max(rtt, med)
		}
		m.st.RTT = rtt
		m.proposal = delayFor(rtt, m.cfg.FrameRate, m.cfg.InputDelay) + 1
		m.nextGreet = m.now() // tell them at once
		return nil
	}
	delay := m.proposal
	for _, id := range players[1:] {
		d := int(m.peers[id].h.Delay)
		if d == 0 {
			return nil // still measuring
		}
		delay = max(delay, d)
	}
	seats := slicesSorted(players)
	remote := make([]transport.Peer, m.cfg.Players)
	for i, id := range seats {
		if id == me {
			m.seat = i
		} else {
			remote[i] = id
		}
	}
	return m.buildP2P(remote, delay-1, p2p.RejoinToken{})
}

func slicesSorted(p []transport.Peer) []transport.Peer {
	out := append([]transport.Peer(nil), p...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// tryRejoin comes back into the seat of the stored token once every other
// seat's player is heard.
func (m *Match[S, I]) tryRejoin() error {
	remote := make([]transport.Peer, m.cfg.Players)
	n, delay := 0, -1
	for _, pe := range m.order {
		h := pe.h
		if !pe.heard || h.Role != rolePlayer || h.Flags&flagStarted == 0 || h.Seat == noSeat {
			continue
		}
		s := int(h.Seat)
		if s >= m.cfg.Players || s == m.token.Seat || remote[s] != "" {
			continue
		}
		remote[s], delay = pe.id, int(h.Delay)-1
		n++
	}
	m.st.Have = n + 1
	if n < m.cfg.Players-1 || delay < 0 {
		return nil
	}
	m.seat = m.token.Seat
	return m.buildP2P(remote, delay, m.token.P2P)
}

func (m *Match[S, I]) buildP2P(remote []transport.Peer, delay int, tok p2p.RejoinToken) error {
	m.delay, m.remote = delay, remote
	p, err := p2p.New[S](p2p.Config[I]{
		Session:          session.Config[I]{Players: m.cfg.Players, InputDelay: delay, Capacity: capacity},
		Remote:           remote,
		SpectatorArchive: m.cfg.Archive,
		Rejoin:           tok,
		Net:              m.netConfig(),
	}, &m.mx, m.simulate)
	if err != nil {
		return fmt.Errorf("netplay: %w", err)
	}
	m.p = p
	if err := m.started(); err != nil {
		return err
	}
	m.st.Phase = Synchronizing
	m.names[m.seat] = m.cfg.Name
	for _, pe := range m.order {
		m.admit(pe)
	}
	m.nextGreet = m.now()
	return nil
}

// tryWatch starts watching once the seat-0 player is heard playing.
func (m *Match[S, I]) tryWatch() error {
	for _, pe := range m.order {
		h := pe.h
		if !pe.heard || h.Role != rolePlayer || h.Flags&flagStarted == 0 || h.Seat != 0 {
			continue
		}
		m.delay = int(h.Delay) - 1
		sp, err := p2p.NewSpectator[S, I](p2p.SpectatorConfig{
			Players: m.cfg.Players, InputDelay: m.delay, Host: pe.id, Net: m.netConfig(),
		}, &m.mx, m.simulate)
		if err != nil {
			return fmt.Errorf("netplay: %w", err)
		}
		m.sp = sp
		if err := m.started(); err != nil {
			return err
		}
		m.st.Phase = Synchronizing
		for _, pe := range m.order {
			m.admit(pe)
		}
		m.nextGreet = m.now()
		return nil
	}
	return nil
}

// admit takes what a peer's hello says into the running match: its name
// at its seat, a spectator to feed (seat 0's job).
func (m *Match[S, I]) admit(pe *peer) {
	h := pe.h
	if !pe.heard {
		return
	}
	if h.Role == rolePlayer && h.Seat != noSeat && int(h.Seat) < len(m.names) && m.mode != ModeClient && m.mode != ModeHost {
		m.names[h.Seat] = h.Name
	}
	if m.p != nil && m.seat == 0 && h.Role == roleSpectator && !pe.added {
		if err := m.p.AddSpectator(pe.id); err == nil {
			pe.added = true
		}
	}
	if m.h != nil {
		m.hostAdmit(pe)
	}
}

func (m *Match[S, I]) tickP2P(in I) error {
	p := m.p
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
		m.st.Waiting = m.laggard()
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
	m.events(m.evs)
	m.st.RTT, m.st.FrameAdvantage, m.st.Rollbacks = 0, 0, p.Stats().Rollbacks
	left := 0
	if m.seatStats == nil {
		m.seatStats = make([]rollnet.PeerStats, m.cfg.Players)
	}
	for s, id := range m.remoteSeats() {
		if m.gone[s] {
			left++
		}
		if id == "" || m.gone[s] {
			continue // a player gone has no stats to ask for (the asking allocates an error)
		}
		if ps, err := p.PeerStats(id); err == nil {
			m.st.RTT = max(m.st.RTT, ps.RTT)
			m.st.FrameAdvantage = max(m.st.FrameAdvantage, ps.LocalFrameAdvantage)
			if old := m.seatStats[s]; old.Peer != id && old.Peer != "" { // it rejoined from elsewhere
				m.retired.BytesSent += old.BytesSent
				m.retired.BytesReceived += old.BytesReceived
				m.retired.ChecksumsCompared += old.ChecksumsCompared
				m.retired.ChecksumsAgreed += old.ChecksumsAgreed
			}
			ps.Peer = id
			m.seatStats[s] = ps
		}
	}
	if left == m.cfg.Players-1 && !m.now().Before(m.awayUntil) {
		m.st.Phase, m.st.Ended = Ended, EndPlayersLeft
		if m.dropped != "" {
			m.tell("%s did not rejoin within %v", m.dropped, cmp.Or(m.cfg.Net.RejoinWindow, rejoinWindow))
		}
	}
	if m.seat == 0 && p.Frame()%rollnet.Frame(m.cfg.FrameRate/4+1) == 0 {
		m.p2pRoster() // the spectators' names and who is away
	}
	return nil
}

// p2pRoster sends the seats' names and states to the spectators.
func (m *Match[S, I]) p2pRoster() {
	if m.roster == nil {
		m.roster = make([]rosterEntry, m.cfg.Players)
	}
	back := m.backSeconds()
	for i, n := range m.names {
		m.roster[i] = rosterEntry{state: 1, name: n}
		if m.gone[i] {
			m.roster[i].state, m.roster[i].back = 2, back
		}
	}
	m.sendRoster(roleSpectator)
}

// remoteSeats is the peer of each seat ("" for this one), from the hellos.
func (m *Match[S, I]) remoteSeats() []transport.Peer {
	if len(m.seatPeers) != m.cfg.Players {
		m.seatPeers = make([]transport.Peer, m.cfg.Players)
	}
	out := m.seatPeers
	clear(out)
	for _, pe := range m.order {
		if pe.heard && pe.h.Role == rolePlayer && pe.h.Seat != noSeat && int(pe.h.Seat) < len(out) && int(pe.h.Seat) != m.seat {
			out[pe.h.Seat] = pe.id
		}
	}
	return out
}

// laggard names the player a tick waited for: one interrupted, else the
// first other one still playing.
func (m *Match[S, I]) laggard() string {
	if m.st.Interrupted != "" {
		return m.st.Interrupted
	}
	for s, id := range m.remoteSeats() {
		if id != "" && !m.gone[s] {
			return m.names[s]
		}
	}
	return ""
}

// events folds the session's events into the status, and tells News.
func (m *Match[S, I]) events(evs []rollnet.Event) {
	for _, ev := range evs {
		f := m.Frame()
		pe := m.peers[ev.Peer]
		spectator := pe != nil && pe.h.Role == roleSpectator && m.p != nil
		switch ev.Kind {
		case rollnet.EventSynchronized:
			if spectator {
				m.spectators++
				m.tell("spectator %s joined at frame %d (replays from frame 0)", m.nameOf(ev.Peer), f)
			}
		case rollnet.EventSyncFailed:
			if spectator {
				m.tell("spectator %s failed its handshake at frame %d: %s", m.nameOf(ev.Peer), f, ev.Reason)
			}
		case rollnet.EventNetworkInterrupted:
			m.st.Interrupted = m.nameOf(ev.Peer)
			m.intUntil = m.now().Add(ev.Timeout)
			m.silence(ev)
		case rollnet.EventNetworkResumed, rollnet.EventDisconnected:
			if m.st.Interrupted == m.nameOf(ev.Peer) {
				m.st.Interrupted = ""
			}
			if ev.Kind == rollnet.EventNetworkResumed {
				delete(m.silent, ev.Peer)
				break
			}
			switch {
			case spectator:
				m.tell("spectator %s left at frame %d", m.nameOf(ev.Peer), f)
			case m.sp != nil && ev.Peer == m.hostOfSpectator():
				m.st.Phase, m.st.Ended = Ended, EndHostGone
				m.left(ev.Peer, "the host "+m.nameOf(ev.Peer), f, "")
			case m.c != nil && ev.Peer == m.hostPeer():
				m.st.Phase, m.st.Ended = Ended, EndHostGone
				m.left(ev.Peer, "the host "+m.nameOf(ev.Peer), f, "")
			case m.h != nil:
				if m.slotOf(ev.Peer) >= 0 { // not a connection its client rejoined from
					then := ""
					if _, vanished := m.silent[ev.Peer]; vanished {
						then = fmt.Sprintf(": its slot is kept for %v", m.cfg.Grace)
						m.dropped = m.nameOf(ev.Peer)
					} else {
						m.quit[ev.Peer] = true // its slot is no longer its (its record waits out the grace all the same)
					}
					m.left(ev.Peer, m.nameOf(ev.Peer), f, then)
				}
			case m.p != nil && pe != nil && pe.h.Seat != noSeat && int(pe.h.Seat) < m.cfg.Players && m.remoteSeats()[pe.h.Seat] == ev.Peer:
				then := ""
				if m.cfg.Net.RejoinWindow >= 0 {
					w := cmp.Or(m.cfg.Net.RejoinWindow, rejoinWindow)
					then = fmt.Sprintf(": may rejoin for %d s", int(w/time.Second))
					m.dropped = m.nameOf(ev.Peer)
				}
				m.left(ev.Peer, m.nameOf(ev.Peer), f, then)
			}
		case rollnet.EventPlayerDisconnected:
			if ev.Player >= 0 && ev.Player < len(m.gone) {
				m.gone[ev.Player] = true
				m.st.Away = m.names[ev.Player]
				if m.st.Away == "" {
					m.st.Away = fmt.Sprintf("player %d", ev.Player+1)
				}
				m.awayUntil = m.now()
				if m.p != nil && m.cfg.Net.RejoinWindow >= 0 {
					m.awayUntil = m.awayUntil.Add(cmp.Or(m.cfg.Net.RejoinWindow, rejoinWindow))
				}
			}
		case rollnet.EventPlayerRejoining:
			if ev.Player != m.seat && ev.Player >= 0 && ev.Player < len(m.names) {
				m.tell("%s is rejoining at frame %d", m.names[ev.Player], ev.Frame)
			}
		case rollnet.EventPlayerRejoined:
			if ev.Player >= 0 && ev.Player < len(m.gone) {
				m.gone[ev.Player] = false
				if m.st.Away == m.names[ev.Player] {
					m.st.Away = ""
				}
				switch {
				case ev.Player == m.seat && m.p != nil:
					rs := m.p.RejoinStats()
					m.tell("rejoined at frame %d: replayed %d frames in %v", ev.Frame, rs.Replayed, rs.CatchUp.Round(time.Millisecond))
				default:
					m.rejoins++
					m.dropped = ""
					m.tell("%s rejoined at frame %d", m.names[ev.Player], ev.Frame)
				}
			}
		case rollnet.EventDesyncDetected:
			if m.st.Desync == "" {
				m.firstDesync = ev.Frame
				m.st.Desync = fmt.Sprintf("frame %d: checksum %08x here, %08x at %s; the simulations parted after frame %d",
					ev.Frame, ev.Local, ev.Remote, m.nameOf(ev.Peer), ev.Agreed)
			}
		}
	}
}

// rejoinWindow is rollnet.NetConfig.RejoinWindow's default.
const rejoinWindow = 60 * time.Second

func (m *Match[S, I]) hostOfSpectator() transport.Peer {
	for _, pe := range m.order {
		if pe.heard && pe.h.Role == rolePlayer && pe.h.Seat == 0 {
			return pe.id
		}
	}
	return ""
}

func (m *Match[S, I]) tickSpectator() error {
	sp := m.sp
	err := sp.AdvanceFrame()
	switch {
	case err == nil:
		m.st.Phase = Running
		m.st.Advanced = true
		if sp.CatchingUp() {
			m.st.Phase = CatchingUp
			m.st.Done, m.st.Total = int(sp.Frame()), int(sp.Frame())+sp.Behind()
			m.fastForward = true
		} else if m.fastForward {
			m.fastForward = false
			m.tell("caught up with the host: %d frames fast-forwarded (not drawn), live %.2f s after joining",
				sp.Frame(), m.now().Sub(m.upAt).Seconds())
		}
	case errors.Is(err, p2p.ErrHostGone):
		m.st.Phase, m.st.Ended = Ended, EndHostGone
	case errors.Is(err, p2p.ErrNotSynchronized):
		m.st.Phase = Synchronizing
	case errors.Is(err, session.ErrPredictionLimit):
		m.st.Phase = Running
	default:
		return err
	}
	m.evs = sp.Events(m.evs[:0])
	m.events(m.evs)
	m.st.RTT = sp.PeerStats().RTT
	return nil
}
