package netplay

import (
	"errors"
	"fmt"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/internal/greeting"
	"github.com/rollnet/rollnet/transport"
)

// clientDriver is an authoritative client's (Connect, with Config.QUIC
// or Config.Fleet too, HostOrConnect's later peers): an authority.Client of the
// room's host, found by its hello (or named by the fleet's placement).
type clientDriver[S any, I comparable] struct {
	m          *Match[S, I]
	c          *authority.Client[S, I]
	lastTick   time.Time
	unverified uint64 // the client's StatesUnverified, seen
}

func newClient[S any, I comparable](m *Match[S, I], _ bool) driver[S, I] {
	m.gate.mu.Lock()
	m.gate.client = true // its transport accepts its host alone, once heard
	m.gate.mu.Unlock()
	return &clientDriver[S, I]{m: m}
}

func (d *clientDriver[S, I]) mode() Mode              { return ModeClient }
func (d *clientDriver[S, I]) greetsAs() greeting.Role { return greeting.RoleClient }
func (d *clientDriver[S, I]) awaits() string          { return "the host to announce itself" }
func (d *clientDriver[S, I]) built() bool             { return d.c != nil }

// check refuses a P2P room (while connecting) and a host of other
// settings (at any time); other clients are not its to check.
func (d *clientDriver[S, I]) check(pe *peer) error {
	switch pe.h.Role {
	case greeting.RoleClient:
		return nil
	case greeting.RolePlayer, greeting.RoleSpectator, greeting.RoleRejoiner:
		if d.c != nil {
			return nil
		}
		return fmt.Errorf("%w: %s %q is %v", ErrP2PRoom, pe.id, pe.h.Name, pe.h.Role)
	}
	return d.m.checkSettings(pe)
}

func (d *clientDriver[S, I]) admit(*peer) {}

// connect becomes the client of the room's host once it announced itself
// (check has compared its settings).
func (d *clientDriver[S, I]) connect() error {
	m := d.m
	if pl := m.link.placed; pl != nil && m.peers.byID[pl.peer] == nil { // the fleet named the host: no hello to wait for
		pe := &peer{id: pl.peer, heard: true, h: greeting.Hello{Role: greeting.RoleHost, Name: pl.Host}}
		m.peers.byID[pl.peer], m.peers.order = pe, append(m.peers.order, pe)
	}
	for _, pe := range m.peers.order {
		if !pe.heard || pe.h.Role != greeting.RoleHost {
			continue
		}
		m.gate.mu.Lock()
		m.gate.host = pe.id
		m.gate.mu.Unlock()
		cfg := authority.ClientConfig{Host: pe.id, Players: m.cfg.Players, Net: m.netConfig()}
		if m.tok.rejoining {
			cfg.Rejoin = m.tok.t.Rejoin
		}
		var c *authority.Client[S, I]
		var err error
		if m.kind.lagcomp != nil {
			c, err = authority.NewClientLagComp(cfg, &m.link.mx, m.kind.lagcomp)
		} else {
			c, err = authority.NewClient[S, I](cfg, &m.link.mx, m.simulate)
		}
		if err != nil {
			return fmt.Errorf("netplay: %w", err)
		}
		d.c = c
		if err := m.started(Synchronizing); err != nil {
			return err
		}
		m.names[0] = pe.h.Name
		return nil
	}
	return nil
}

func (d *clientDriver[S, I]) tick(in I, now time.Time) error {
	m, c := d.m, d.c
	if err := c.AddLocalInput(0, in); err != nil && !errors.Is(err, authority.ErrNotReady) {
		return err
	}
	dt := time.Second / time.Duration(m.cfg.FrameRate)
	if !d.lastTick.IsZero() {
		dt = min(now.Sub(d.lastTick), 250*time.Millisecond)
	}
	d.lastTick = now
	_, newest := c.HostState() // a state failing its check is newer
	steps, err := c.Update(dt)
	if errors.Is(err, authority.ErrSettings) {
		// The host refused what netplay's greeting could not check (the
		// state's or an input's size, the protocol): one error for both
		// paths, errors.Is ErrSettings and authority.ErrSettings.
		return fmt.Errorf("%w: %w", ErrSettings, err)
	}
	if err != nil {
		return err
	}
	m.st.Phase, m.st.Advanced = Synchronizing, false
	if !c.Synchronized() {
		// Admitted to a host that holds its lobby (its WaitForPlayers):
		// it is there (its link would time out otherwise), and starts
		// when its players are; no deadline but its own.
		admitted := c.Stats().Admitted
		if m.st.Waiting = ""; admitted {
			m.st.Waiting = "the host to start the match"
		}
		if !admitted && m.seat < 0 && !now.Before(m.deadline) { // a host that went before its first state
			return fmt.Errorf("%w: %v waiting for host %s's first state", ErrTimeout, m.cfg.Timeout, m.gate.hostPeer())
		}
	}
	if c.Synchronized() {
		d.synchronized(now, newest, steps)
	}
	m.evs = c.Events(m.evs[:0])
	d.events()
	return nil
}

// synchronized folds the client's statistics into the status: its slot
// once the host gave it, a host state that failed its check.
func (d *clientDriver[S, I]) synchronized(now time.Time, newest rollnet.Frame, steps int) {
	m, c := d.m, d.c
	st := c.Stats()
	m.st.Phase, m.st.Advanced, m.st.RTT, m.st.Waiting = Running, steps > 0, st.RTT, ""

	m.st.Rollbacks = int(st.Mismatches)
	m.st.Awaiting, m.st.AwaitedAt, m.st.AwaitedFor = "", rollnet.NoFrame, 0
	if st.Awaiting > 0 { // the host holds the match (its Absence): not the network's trouble
		m.st.Awaiting, m.st.AwaitedAt, m.st.AwaitedFor = m.seatLabel(st.Awaited), st.HoldAt, st.HeldFor
		m.st.Advanced = false
	}
	if st.Forfeited {
		m.st.Phase, m.st.Ended, m.st.Away = Ended, EndForfeit, m.st.Awaiting
	}
	if st.StatesUnverified > d.unverified {
		d.unverified = st.StatesUnverified
		if m.st.Desync == "" {
			m.story.firstDesync = newest + 1
			m.st.Desync = fmt.Sprintf("a host state after frame %d did not match its checksum: the client's copy of a state it was coded against was not the host's (dropped, back to the newest verified)", newest)
		}
	}
	if m.seat == st.First {
		return
	}
	if m.seat < 0 {
		how, then := "joined", ""
		switch {
		case st.Rejoined:
			how, then = "rejoined", ": its token taken, the same slot"
			m.story.rejoins++
		case st.Rejected:
			then = " afresh: its rejoin token refused (too late)"
		}
		m.tell("%s the host %s at frame %d (slot %d)%s", how, m.nameOf(m.gate.hostPeer()), c.Frame(), st.First+1, then)
	}
	m.seat = st.First
	m.peers.nextGreet = now // the host and the others learn the slot at once
	if m.seat >= 0 && m.seat < len(m.names) {
		m.names[m.seat] = m.cfg.Name
	}
}

// events folds the session's events: the host leaving ends the match.
func (d *clientDriver[S, I]) events() {
	m := d.m
	f := d.c.Frame()
	host := m.gate.hostPeer()
	for _, ev := range m.evs {
		if ev.Kind == rollnet.EventDisconnected && ev.Peer == host {
			m.resumed(ev)
			m.st.Phase, m.st.Ended = Ended, EndHostGone
			m.left(ev.Peer, "the host "+m.nameOf(ev.Peer), f, "")
			continue
		}
		if ev.Kind == rollnet.EventPlayerRejoined { // (the host's Absence: the player it waited for)
			m.back(ev)
			m.tell("%s is back: the match resumes at frame %d", m.seatLabel(ev.Player), ev.Frame)
			continue
		}
		m.foldEvent(ev, f)
	}
}

func (d *clientDriver[S, I]) state() *S            { return d.c.State() }
func (d *clientDriver[S, I]) frame() rollnet.Frame { return d.c.Frame() }

func (d *clientDriver[S, I]) playout() (a, b *S, alpha float64, ok bool) {
	if d.m.kind.lagcomp != nil {
		// What the next inputs are stamped with, and judged against.
		if sg, ok := d.c.Sight(); ok {
			num, den := sg.Weight()
			return sg.From, sg.To, float64(num) / float64(den), true
		}
	}
	if t, ok := d.c.RenderTime(); ok {
		return d.c.PlayoutAt(t)
	}
	return nil, nil, 0, false
}

// checksum: none; the host checks the client's states for it.
func (d *clientDriver[S, I]) checksum() (rollnet.Frame, uint32, bool) {
	return d.c.ConfirmedChecksum()
}

func (d *clientDriver[S, I]) checksumAt(f rollnet.Frame) (uint32, error) { return d.c.ChecksumAt(f) }

func (d *clientDriver[S, I]) stats(s Stats) (Stats, transport.Peer) {
	st := d.c.Stats()
	s.Rollbacks, s.Resimulated, s.RTT = st.Mismatches, st.ResimulatedFrames, st.RTT
	s.BytesSent, s.BytesReceived = st.Link.BytesSent, st.Link.BytesReceived
	s.Compared, s.Agreed = st.StatesVerified+st.StatesUnverified, st.StatesVerified
	s.InputLead, s.TimeScale = st.Depth, 1+st.Rate
	return s, d.m.gate.hostPeer()
}

func (d *clientDriver[S, I]) token() (Token, bool) {
	if t, ok := d.c.RejoinToken(); ok && d.c.Synchronized() { // its slot known
		return Token{Mode: ModeClient, Room: d.m.cfg.Room, Seat: max(d.m.seat, 0), Rejoin: t}, true
	}
	return Token{}, false
}

func (d *clientDriver[S, I]) seatOf(pe *peer, _ transport.Peer) int { return helloSeat(pe) }
func (d *clientDriver[S, I]) seatPeer(int) transport.Peer           { return "" }
func (d *clientDriver[S, I]) rosterFrom() transport.Peer            { return d.m.gate.hostPeer() }
func (d *clientDriver[S, I]) parseRoster(b []byte) error            { return d.m.parseRoster(b) }

func (d *clientDriver[S, I]) close() {
	if d.c != nil {
		_ = d.c.Close()
	}
}

func (d *clientDriver[S, I]) sessions() sessions[S, I] { return sessions[S, I]{c: d.c} }
