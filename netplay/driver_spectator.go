package netplay

import (
	"errors"
	"fmt"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/greeting"
	"github.com/rollnet/rollnet/p2p"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
)

// spectatorDriver is a P2P spectator's (Watch): fed by the player in seat
// 0 from the match's first frame, through a p2p.Spectator.
type spectatorDriver[S any, I comparable] struct {
	m           *Match[S, I]
	sp          *p2p.Spectator[S, I] // nil until seat 0 is heard playing
	fastForward bool                 // catching up
}

func newSpectator[S any, I comparable](m *Match[S, I], _ bool) driver[S, I] {
	return &spectatorDriver[S, I]{m: m}
}

func (d *spectatorDriver[S, I]) mode() Mode              { return ModeSpectator }
func (d *spectatorDriver[S, I]) greetsAs() greeting.Role { return greeting.RoleSpectator }
func (d *spectatorDriver[S, I]) awaits() string          { return "the match's seat-0 player" }
func (d *spectatorDriver[S, I]) built() bool             { return d.sp != nil }

func (d *spectatorDriver[S, I]) check(pe *peer) error { return checkP2PRoom(d.m, pe, d.sp != nil) }
func (d *spectatorDriver[S, I]) admit(pe *peer)       { d.m.seatName(pe) }

// connect starts watching once the seat-0 player is heard playing.
func (d *spectatorDriver[S, I]) connect() error {
	m := d.m
	for _, pe := range m.peers.order {
		h := pe.h
		if !pe.heard || h.Role != greeting.RolePlayer || h.Flags&greeting.FlagStarted == 0 || h.Seat != 0 {
			continue
		}
		m.delay = int(h.Delay) - 1
		sp, err := p2p.NewSpectator[S, I](p2p.SpectatorConfig{
			Players: m.cfg.Players, InputDelay: m.delay, Host: pe.id, Net: m.netConfig(),
		}, &m.link.mx, m.simulate)
		if err != nil {
			return fmt.Errorf("netplay: %w", err)
		}
		d.sp = sp
		return m.started(Synchronizing)
	}
	return nil
}

// host is the player in seat 0, who feeds this spectator.
func (d *spectatorDriver[S, I]) host() transport.Peer {
	for _, pe := range d.m.peers.order {
		if pe.heard && pe.h.Role == greeting.RolePlayer && pe.h.Seat == 0 {
			return pe.id
		}
	}
	return ""
}

func (d *spectatorDriver[S, I]) tick(_ I, now time.Time) error {
	m, sp := d.m, d.sp
	err := sp.AdvanceFrame()
	switch {
	case err == nil:
		m.st.Phase = Running
		m.st.Advanced = true
		if sp.CatchingUp() {
			m.st.Phase = CatchingUp
			m.st.Done, m.st.Total = int(sp.Frame()), int(sp.Frame())+sp.Behind()
			d.fastForward = true
		} else if d.fastForward {
			d.fastForward = false
			m.tell("caught up with the host: %d frames fast-forwarded (not drawn), live %.2f s after joining",
				sp.Frame(), now.Sub(m.link.upAt).Seconds())
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
	f := sp.Frame()
	for _, ev := range m.evs {
		if ev.Kind == rollnet.EventDisconnected && ev.Peer == d.host() {
			m.resumed(ev)
			m.st.Phase, m.st.Ended = Ended, EndHostGone
			m.left(ev.Peer, "the host "+m.nameOf(ev.Peer), f, "")
			continue
		}
		m.foldEvent(ev, f)
	}
	m.st.RTT = sp.PeerStats().RTT
	return nil
}

func (d *spectatorDriver[S, I]) state() *S            { return d.sp.State() }
func (d *spectatorDriver[S, I]) frame() rollnet.Frame { return d.sp.Frame() }

func (d *spectatorDriver[S, I]) playout() (a, b *S, alpha float64, ok bool) {
	s := d.sp.State()
	return s, s, 0, true
}

func (d *spectatorDriver[S, I]) checksum() (rollnet.Frame, uint32, bool) {
	frame := d.sp.Frame() - 1
	s, err := d.sp.ChecksumAt(frame)
	return frame, s, err == nil
}

func (d *spectatorDriver[S, I]) checksumAt(frame rollnet.Frame) (uint32, error) {
	return d.sp.ChecksumAt(frame)
}

func (d *spectatorDriver[S, I]) stats(s Stats) (Stats, transport.Peer) {
	var far transport.Peer
	ps := d.sp.PeerStats()
	ps.Peer = d.host()
	sumLink(&s, &far, ps)
	return s, far
}

func (d *spectatorDriver[S, I]) token() (Token, bool) { return Token{}, false }

func (d *spectatorDriver[S, I]) seatOf(pe *peer, _ transport.Peer) int { return helloSeat(pe) }

func (d *spectatorDriver[S, I]) seatPeer(seat int) transport.Peer {
	for _, pe := range d.m.peers.order {
		if pe.heard && pe.h.Role == greeting.RolePlayer && int(pe.h.Seat) == seat {
			return pe.id
		}
	}
	return ""
}

func (d *spectatorDriver[S, I]) rosterFrom() transport.Peer { return d.host() }
func (d *spectatorDriver[S, I]) parseRoster(b []byte) error { return d.m.parseRoster(b) }

func (d *spectatorDriver[S, I]) close() {
	if d.sp != nil {
		_ = d.sp.Close()
	}
}

func (d *spectatorDriver[S, I]) sessions() sessions[S, I] { return sessions[S, I]{sp: d.sp} }
