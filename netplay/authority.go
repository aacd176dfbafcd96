package netplay

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/internal/wire"
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
	back  uint8 // seconds an away player may still come back
	name  string
}

// appendRoster appends the roster message of es to b: only the first
// entries that fit one datagram.
func appendRoster(b []byte, es []rosterEntry) []byte {
	at := len(b) + 2 // the count's byte
	b = append(b, appByte, kindRoster, 0)
	n := 0
	for _, e := range es {
		if len(b)+3+len(e.name) > wire.MaxPacket {
			break
		}
		b = append(b, e.state, e.back, byte(len(e.name)))
		b = append(b, e.name...)
		n++
	}
	b[at] = byte(n)
	return b
}

// authSide is the authoritative half of a Match: every call a Match makes
// into package authority goes through it. Only Host, Connect,
// HostOrConnect and ConnectFleet set it (authHalf), so a game that calls
// Join and Watch alone links none of packages authority and playout: the
// linker keeps the methods of authHalf only where a call can reach its
// construction (in the browser pong, authority and playout were 293 kB of
// its wasm, 73 kB gzipped).
type authSide[S any, I comparable] interface {
	start(m *Match[S, I]) error // a ModeHost or ModeClient match's session
	tick(m *Match[S, I], in I, now time.Time) error
	state(m *Match[S, I]) *S
	frame(m *Match[S, I]) rollnet.Frame
	playout(m *Match[S, I]) (a, b *S, alpha float64, ok bool)       // a client's
	checksumAt(m *Match[S, I], frame rollnet.Frame) (uint32, error) // a host's
	token(m *Match[S, I]) (Token, bool)                             // a client's
	slotOf(m *Match[S, I], peer transport.Peer) int                 // a host's
	stats(m *Match[S, I], s Stats) (Stats, transport.Peer)          // Match.Stats's
	close(m *Match[S, I])
}

// authHalf is the authSide: the Match's h (a host) or c (a client).
type authHalf[S any, I comparable] struct{}

func (authHalf[S, I]) start(m *Match[S, I]) error {
	if m.mode == ModeHost {
		return m.buildHost()
	}
	return m.tryConnect()
}

func (authHalf[S, I]) tick(m *Match[S, I], in I, now time.Time) error {
	if m.h != nil {
		return m.tickHost(in)
	}
	return m.tickClient(in, now)
}

func (authHalf[S, I]) state(m *Match[S, I]) *S {
	if m.h != nil {
		return m.h.State()
	}
	return m.c.State()
}

func (authHalf[S, I]) frame(m *Match[S, I]) rollnet.Frame {
	if m.h != nil {
		return m.h.Frame()
	}
	return m.c.Frame()
}

func (authHalf[S, I]) playout(m *Match[S, I]) (a, b *S, alpha float64, ok bool) {
	if t, ok := m.c.RenderTime(); ok {
		return m.c.PlayoutAt(t)
	}
	return nil, nil, 0, false
}

func (authHalf[S, I]) checksumAt(m *Match[S, I], frame rollnet.Frame) (uint32, error) {
	return m.h.ChecksumAt(frame)
}

func (authHalf[S, I]) token(m *Match[S, I]) (Token, bool) {
	if t, ok := m.c.RejoinToken(); ok && m.c.Synchronized() { // its slot known
		return Token{Mode: ModeClient, Room: m.cfg.Room, Seat: max(m.seat, 0), Host: t}, true
	}
	return Token{}, false
}

func (authHalf[S, I]) slotOf(m *Match[S, I], peer transport.Peer) int { return m.slotOf(peer) }

func (authHalf[S, I]) stats(m *Match[S, I], s Stats) (Stats, transport.Peer) { return m.authStats(s) }

func (authHalf[S, I]) close(m *Match[S, I]) {
	if m.h != nil {
		_ = m.h.Close()
	} else {
		_ = m.c.Close()
	}
}

func (m *Match[S, I]) hostPeer() transport.Peer {
	m.hostMu.Lock()
	defer m.hostMu.Unlock()
	return m.hostID
}

func (m *Match[S, I]) buildHost() error {
	h, err := authority.NewHost[S](authority.HostConfig[I]{
		Players: m.cfg.Players, LocalPlayers: m.cfg.LocalPlayers, Net: m.netConfig(),
		Grace: m.cfg.Grace, LateInput: m.cfg.LateInput,
	}, &m.mx, m.simulate)
	if err != nil {
		return fmt.Errorf("netplay: %w", err)
	}
	m.h = h
	if err := m.started(); err != nil {
		return err
	}
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

// slotOf is the first slot of the host's client at peer, -1 if none.
func (m *Match[S, I]) slotOf(peer transport.Peer) int {
	if m.cs == nil {
		m.cs = make([]authority.HostClientStats, 0, wire.MaxPlayers)
	}
	m.cs = m.h.Clients(m.cs[:0])
	for _, c := range m.cs {
		if c.Peer == peer {
			return c.First
		}
	}
	return -1
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
	st := h.Stats()
	m.st.Rollbacks = st.Rollbacks
	m.hostNews(st)
	m.events(m.evs)
	if f := h.Frame(); f%rollnet.Frame(m.cfg.FrameRate/4+1) == 0 {
		m.hostRoster()
	}
	return nil
}

// hostRoster refreshes the names and states of the slots and sends them
// to every client.
func (m *Match[S, I]) hostRoster() {
	var cs [wire.MaxPlayers]authority.HostClientStats
	clients := m.h.Clients(cs[:0])
	for i := m.cfg.LocalPlayers; i < len(m.roster); i++ {
		m.roster[i] = rosterEntry{}
	}
	m.st.Have = m.cfg.LocalPlayers
	now := m.now()
	away := ""
	for _, c := range clients {
		if m.quit[c.Peer] || c.First < 0 || c.First >= len(m.roster) {
			continue
		}
		e := rosterEntry{state: 1, name: m.nameOf(c.Peer)}
		if c.Away {
			e.state = 2
			if away == "" {
				away = e.name
			}
		}
		if c.First < m.cfg.LocalPlayers {
			continue // a client never holds the host's own slots
		}
		m.roster[c.First] = e
		m.st.Have++
	}
	for i := m.cfg.LocalPlayers; i < len(m.names); i++ {
		m.names[i] = m.roster[i].name // "" for a free slot
	}
	if away != m.st.Away {
		m.st.Away, m.awayUntil = away, now.Add(m.cfg.Grace)
	}
	back := m.backSeconds()
	for i := range m.roster {
		if m.roster[i].state == 2 {
			m.roster[i].back = back
		}
	}
	m.sendRoster(roleClient)
}

// backSeconds is how long the player away may still come back, in whole
// seconds for the roster.
func (m *Match[S, I]) backSeconds() uint8 {
	return uint8(min(max(m.awayUntil.Sub(m.now()), 0)/time.Second, 255))
}

// sendRoster sends m.roster (a host's slots, a P2P seat 0's seats) to
// every peer of role to.
func (m *Match[S, I]) sendRoster(to role) {
	b := appendRoster(m.buf[:0], m.roster)
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
	switch {
	case away != "" && away != m.st.Away:
		m.tell("%s dropped at frame %d", away, m.Frame())
	case away == "" && m.st.Away != "":
		m.tell("%s is back at frame %d", m.st.Away, m.Frame())
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
		if err := m.started(); err != nil {
			return err
		}
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
	if !c.Synchronized() && m.seat < 0 && !now.Before(m.deadline) { // a host that went before its first state
		return fmt.Errorf("%w: %v waiting for host %s's first state", ErrTimeout, m.cfg.Timeout, m.hostPeer())
	}
	if c.Synchronized() {
		st := c.Stats()
		m.st.Phase, m.st.Advanced, m.st.RTT = Running, steps > 0, st.RTT
		m.st.Rollbacks = int(st.Mismatches)
		if st.StatesUnverified > m.unverified {
			m.unverified = st.StatesUnverified
			if m.st.Desync == "" {
				m.firstDesync = newest + 1
				m.st.Desync = fmt.Sprintf("a host state after frame %d did not match its checksum: the client's copy of a state it was coded against was not the host's (dropped, back to the newest verified)", newest)
			}
		}
		if m.seat != st.First {
			if m.seat < 0 {
				how, then := "joined", ""
				switch {
				case st.Rejoined:
					how, then, m.rejoins = "rejoined", ": its token taken, the same slot", m.rejoins+1
				case st.Rejected:
					then = " afresh: its rejoin token refused (too late)"
				}
				m.tell("%s the host %s at frame %d (slot %d)%s", how, m.nameOf(m.hostPeer()), c.Frame(), st.First+1, then)
			}
			m.seat = st.First
			m.nextGreet = now // the host and the others learn the slot at once
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
