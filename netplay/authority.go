package netplay

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/codec"
	"github.com/rollnet/rollnet/transport"
)

// kind 5 roster, host to clients: who holds which slot, so that every
// client shows every player's name and who is away:
//
//	[count u8] then count × ([state u8] [come back within, s, u8] [name len u8] [name])
//
// state 0: the slot is free, 1: played, 2: its player is away. Only the
// first slots that fit one datagram are listed.
const kindRoster = 5

// grace is authority.HostConfig.Grace's default: how long an away
// client's slots wait for it.
const grace = 20 * time.Second

type rosterEntry struct {
	state uint8
	name  string
}

func (m *Match[S, I]) hostPeer() transport.Peer {
	m.hostMu.Lock()
	defer m.hostMu.Unlock()
	return m.hostID
}

func (m *Match[S, I]) buildHost() error {
	h, err := authority.NewHost[S](authority.HostConfig[I]{
		Players: m.cfg.Players, LocalPlayers: m.cfg.LocalPlayers, Net: m.netConfig(),
	}, &m.mx, m.simulate)
	if err != nil {
		return fmt.Errorf("netplay: %w", err)
	}
	m.h = h
	m.roster = make([]rosterEntry, m.cfg.Players)
	if m.cfg.LocalPlayers > 0 {
		m.seat = 0
		m.names[0] = m.cfg.Name
		m.roster[0] = rosterEntry{state: 1, name: m.cfg.Name}
	}
	m.st.Phase = Running
	m.nextGreet = m.now()
	return nil
}

// hostAdmit: nothing to do for a new peer but greet it (done by onApp).
func (m *Match[S, I]) hostAdmit(*peer) {}

func (m *Match[S, I]) tickHost(in I) error {
	h := m.h
	if m.cfg.LocalPlayers > 0 {
		if err := h.AddLocalInput(0, in); err != nil {
			return err
		}
	}
	if err := h.AdvanceFrame(); err != nil {
		return err
	}
	m.st.Phase, m.st.Advanced = Running, true
	m.evs = h.Events(m.evs[:0])
	m.events(m.evs)
	if f := h.Frame(); f%rollnet.Frame(m.cfg.FrameRate/4+1) == 0 {
		m.hostRoster()
	}
	return nil
}

// hostRoster refreshes the names and states of the slots and sends them
// to every client.
func (m *Match[S, I]) hostRoster() {
	var cs [codec.MaxPlayers]authority.HostClientStats
	clients := m.h.Clients(cs[:0])
	for i := m.cfg.LocalPlayers; i < len(m.roster); i++ {
		m.roster[i] = rosterEntry{}
	}
	m.st.Have = m.cfg.LocalPlayers
	now := m.now()
	away := ""
	for _, c := range clients {
		if c.First < 0 || c.First >= len(m.roster) {
			continue
		}
		e := rosterEntry{state: 1, name: m.nameOf(c.Peer)}
		if c.Away {
			e.state = 2
			if away == "" {
				away = e.name
			}
		}
		m.roster[c.First] = e
		m.names[c.First] = e.name
		m.st.Have++
	}
	if away != m.st.Away {
		m.st.Away, m.awayUntil = away, now.Add(grace)
	}
	m.sendRoster(roleClient)
}

// sendRoster sends m.roster (a host's slots, a P2P seat 0's seats) to
// every peer of role to, with how long an away player may come back.
func (m *Match[S, I]) sendRoster(to role) {
	back := uint8(min(max(m.awayUntil.Sub(m.now()), 0)/time.Second, 255))
	b := append(m.buf[:0], appByte, kindRoster, 0)
	n := 0
	for _, e := range m.roster {
		if len(b)+3+len(e.name) > codec.MaxPacket {
			break
		}
		bk := uint8(0)
		if e.state == 2 {
			bk = back
		}
		b = append(b, e.state, bk, byte(len(e.name)))
		b = append(b, e.name...)
		n++
	}
	b[2] = byte(n)
	m.buf = b
	for _, pe := range m.order {
		if pe.heard && pe.h.Role == to {
			_ = m.tr.Send(pe.id, b)
		}
	}
}

// parseRoster takes the host's roster into the client's names.
func (m *Match[S, I]) parseRoster(b []byte) error {
	if len(b) < 3 {
		return io.ErrUnexpectedEOF
	}
	n, b := int(b[2]), b[3:]
	if n > len(m.names) {
		return errMalformed
	}
	away, back := "", time.Duration(0)
	for i := range n {
		if len(b) < 3 || len(b) < 3+int(b[2]) {
			return io.ErrUnexpectedEOF
		}
		state, bk, name := b[0], b[1], b[3:3+int(b[2])]
		if state > 2 || len(name) > MaxName || !validName(name) {
			return errMalformed
		}
		if string(name) != m.names[i] {
			m.names[i] = string(name)
		}
		if state == 2 && away == "" && i != m.seat {
			away, back = m.names[i], time.Duration(bk)*time.Second
		}
		b = b[3+len(name):]
	}
	if len(b) != 0 {
		return errMalformed
	}
	m.st.Away = away
	m.awayUntil = m.now().Add(back)
	return nil
}

// tryConnect becomes the client of the room's host once it announced
// itself (check has compared its settings).
func (m *Match[S, I]) tryConnect() error {
	if pl := m.placed; pl != nil && m.peers[pl.peer] == nil { // the fleet named the host: no hello to wait for
		pe := &peer{id: pl.peer, heard: true, h: hello{Role: roleHost, Name: pl.Host}}
		m.peers[pl.peer], m.order = pe, append(m.order, pe)
	}
	for _, pe := range m.order {
		if !pe.heard || pe.h.Role != roleHost {
			continue
		}
		m.hostMu.Lock()
		m.hostID = pe.id
		m.hostMu.Unlock()
		cfg := authority.ClientConfig{Host: pe.id, Players: m.cfg.Players, Net: m.netConfig()}
		if m.rejoining {
			cfg.Rejoin = m.token.Host
		}
		c, err := authority.NewClient[S, I](cfg, &m.mx, m.simulate)
		if err != nil {
			return fmt.Errorf("netplay: %w", err)
		}
		m.c = c
		m.st.Phase = Synchronizing
		m.names[0] = pe.h.Name
		m.nextGreet = m.now()
		return nil
	}
	return nil
}

func (m *Match[S, I]) tickClient(in I, now time.Time) error {
	c := m.c
	if err := c.AddLocalInput(0, in); err != nil && !errors.Is(err, authority.ErrNotReady) {
		return err
	}
	dt := time.Second / time.Duration(m.cfg.FrameRate)
	if !m.lastTick.IsZero() {
		dt = min(now.Sub(m.lastTick), 250*time.Millisecond)
	}
	m.lastTick = now
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
	if !c.Synchronized() && m.seat < 0 && !now.Before(m.deadline) { // a host that went before its first state
		return fmt.Errorf("%w: %v waiting for host %s's first state", ErrTimeout, m.cfg.Timeout, m.hostPeer())
	}
	if c.Synchronized() {
		st := c.Stats()
		m.st.Phase, m.st.Advanced, m.st.RTT = Running, steps > 0, st.RTT
		m.st.Rollbacks = int(st.Mismatches)
		if m.seat != st.First {
			m.seat = st.First
			if m.seat >= 0 && m.seat < len(m.names) {
				m.names[m.seat] = m.cfg.Name
			}
		}
	}
	m.evs = c.Events(m.evs[:0])
	for _, ev := range m.evs {
		if ev.Kind == rollnet.EventDisconnected && ev.Peer == m.hostPeer() {
			m.st.Phase, m.st.Ended = Ended, EndHostGone
		}
	}
	m.events(m.evs)
	return nil
}
