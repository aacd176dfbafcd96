package netplay

import (
	"fmt"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/internal/greeting"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/transport"
)

// hostDriver is an authoritative host's (Host, HostOrConnect's first
// peer), dedicated or listen: an authority.Host, announced to every peer
// in the room, that sends its clients the roster.
//
// Only Host, HostOrConnect and the authoritative constructors reach
// newHost and newClient, so a game that calls Join and Watch alone links
// none of packages authority and playout (in the browser pong, they were
// 293 kB of its wasm, 73 kB gzipped).
type hostDriver[S any, I comparable] struct {
	m         *Match[S, I]
	h         *authority.Host[S, I]
	roster    []greeting.RosterEntry
	cs        []authority.HostClientStats // the clients, a buffer
	slotPeers map[transport.Peer]int      // the clients told of
	quit      map[transport.Peer]bool     // the clients that quit
	joined    uint64                      // clients joined and rejoined, told
	rejoined  uint64
	expired   uint64
	ticks     int  // counted, not frames: a lobby does not advance
	waiting   bool // the host held its lobby at the last tick
}

func newHost[S any, I comparable](m *Match[S, I], _ bool) driver[S, I] {
	return &hostDriver[S, I]{
		m: m, slotPeers: map[transport.Peer]int{}, quit: map[transport.Peer]bool{},
		cs: make([]authority.HostClientStats, 0, wire.MaxPlayers),
	}
}

// newHostOrClient is HostOrConnect's choice: the host of an empty room,
// else a client of the room's host.
func newHostOrClient[S any, I comparable](m *Match[S, I], first bool) driver[S, I] {
	if first {
		return newHost(m, first)
	}
	m.cfg.LocalPlayers = 0
	return newClient(m, first)
}

func (d *hostDriver[S, I]) mode() Mode              { return ModeHost }
func (d *hostDriver[S, I]) greetsAs() greeting.Role { return greeting.RoleHost }
func (d *hostDriver[S, I]) awaits() string          { return "the other players" }
func (d *hostDriver[S, I]) built() bool             { return d.h != nil }

// check: a client checks the host's settings, and fails alone.
func (d *hostDriver[S, I]) check(*peer) error { return nil }

// admit: nothing to do for a new peer but greet it (done by onApp).
func (d *hostDriver[S, I]) admit(*peer) {}

func (d *hostDriver[S, I]) connect() error {
	m := d.m
	hc := authority.HostConfig[I]{
		Players: m.cfg.Players, LocalPlayers: m.cfg.LocalPlayers, Net: m.netConfig(),
		Grace: m.cfg.Grace, LateInput: m.cfg.LateInput,
		WaitForPlayers: m.cfg.WaitForPlayers, LobbyTimeout: m.cfg.LobbyTimeout,
		MaxRewind: m.kind.maxRewind, Absence: m.cfg.Absence, PlayingSlots: m.cfg.PlayingSlots,
	}
	var h *authority.Host[S, I]
	var err error
	if m.kind.lagcomp != nil {
		h, err = authority.NewHostLagComp(hc, &m.link.mx, m.kind.lagcomp)
	} else {
		h, err = authority.NewHost[S](hc, &m.link.mx, m.simulate)
	}
	if err != nil {
		return fmt.Errorf("netplay: %w", err)
	}
	d.h = h
	d.waiting = m.cfg.WaitForPlayers > 0
	if err := m.started(Running); err != nil {
		return err
	}
	d.roster = make([]greeting.RosterEntry, m.cfg.Players)
	if m.cfg.LocalPlayers > 0 {
		m.seat = 0
		m.names[0] = m.cfg.Name
		d.roster[0] = greeting.RosterEntry{State: 1, Name: m.cfg.Name}
	}
	return nil
}

// slotOf is the first slot of the client at peer, -1 if none.
func (d *hostDriver[S, I]) slotOf(peer transport.Peer) int {
	d.cs = d.h.Clients(d.cs[:0])
	for _, c := range d.cs {
		if c.Peer == peer {
			return c.First
		}
	}
	return -1
}

func (d *hostDriver[S, I]) tick(in I, _ time.Time) error {
	m, h := d.m, d.h
	if m.cfg.LocalPlayers > 0 {
		if err := h.AddLocalInput(0, in); err != nil {
			return err
		}
	}
	if err := h.AdvanceFrame(); err != nil {
		return err
	}
	m.evs = h.Events(m.evs[:0])
	st := h.Stats()
	m.st.Phase, m.st.Advanced = Running, true
	if st.Waiting {
		m.st.Phase, m.st.Advanced, m.st.Have, m.st.Need = Connecting, false, st.Present, m.cfg.WaitForPlayers
	} else if d.waiting {
		m.tell("the match started with %d of %d players", st.Present, m.cfg.Players)
	}
	d.waiting = st.Waiting
	m.st.Rollbacks = st.Rollbacks
	m.st.Awaiting, m.st.AwaitedAt, m.st.AwaitedFor = "", rollnet.NoFrame, 0
	if st.Awaiting > 0 {
		m.st.Awaiting, m.st.AwaitedAt, m.st.AwaitedFor = m.seatLabel(st.Awaited), st.HoldAt, st.HeldFor
		m.st.Advanced = false
	}
	d.news(st)
	d.events()
	if st.Forfeited {
		m.st.Phase, m.st.Ended, m.st.Advanced, m.st.Away = Ended, EndForfeit, false, m.st.Awaiting
	}
	if d.ticks++; d.ticks%(m.cfg.FrameRate/4+1) == 1 {
		d.sendRoster()
	}
	return nil
}

// events folds the session's events: a client leaving, and what every
// mode folds.
func (d *hostDriver[S, I]) events() {
	m := d.m
	f := d.h.Frame()
	for _, ev := range m.evs {
		if ev.Kind == rollnet.EventPlayerRejoined { // (Absence: the player the match waited for)
			m.back(ev)
			m.tell("%s is back: the match resumes at frame %d", m.seatLabel(ev.Player), ev.Frame)
			continue
		}
		if ev.Kind != rollnet.EventDisconnected {
			m.foldEvent(ev, f)
			continue
		}
		m.resumed(ev)
		if d.slotOf(ev.Peer) < 0 {
			continue // a connection its client rejoined from
		}
		then := ""
		if _, vanished := m.story.silent[ev.Peer]; vanished {
			then = fmt.Sprintf(": its slot is kept for %v", m.cfg.Grace)
			m.story.dropped = m.nameOf(ev.Peer)
		} else {
			d.quit[ev.Peer] = true // its slot is no longer its (its record waits out the grace all the same)
		}
		m.left(ev.Peer, m.nameOf(ev.Peer), f, then)
	}
}

// news tells the clients that joined or came back (by the host's
// statistics' counts) and those whose grace window ran out.
func (d *hostDriver[S, I]) news(st authority.HostStats) {
	m := d.m
	if st.Joined+st.Rejoined > d.joined {
		back := st.Rejoined > d.rejoined
		d.joined, d.rejoined = st.Joined+st.Rejoined, st.Rejoined
		d.cs = d.h.Clients(d.cs[:0])
		for _, c := range d.cs {
			if _, ok := d.slotPeers[c.Peer]; ok || !c.Connected {
				continue
			}
			d.slotPeers[c.Peer] = c.First
			if back {
				if m.st.Interrupted == m.nameOf(c.Peer) { // its old connection's silence is over
					m.st.Interrupted = ""
				}
				m.story.rejoins++
				m.tell("%s rejoined at frame %d (slot %d, kept)", m.nameOf(c.Peer), st.Frame, c.First+1)
			} else {
				m.tell("%s joined at frame %d (slot %d)", m.nameOf(c.Peer), st.Frame, c.First+1)
			}
		}
	}
	if st.Expired > d.expired {
		d.expired = st.Expired
		if m.story.dropped != "" {
			m.tell("%s did not rejoin within %v", m.story.dropped, m.cfg.Grace)
			m.story.dropped = ""
		}
	}
}

// sendRoster refreshes the names and states of the slots and sends them
// to every client.
func (d *hostDriver[S, I]) sendRoster() {
	m := d.m
	var cs [wire.MaxPlayers]authority.HostClientStats
	clients := d.h.Clients(cs[:0])
	for i := m.cfg.LocalPlayers; i < len(d.roster); i++ {
		d.roster[i] = greeting.RosterEntry{}
	}
	m.st.Have = m.cfg.LocalPlayers
	now := m.cfg.Now()
	away := ""
	for _, c := range clients {
		if d.quit[c.Peer] || c.First < 0 || c.First >= len(d.roster) {
			continue
		}
		e := greeting.RosterEntry{State: 1, Name: m.nameOf(c.Peer)}
		if c.Away {
			e.State = 2
			if away == "" {
				away = e.Name
			}
		}
		if c.First < m.cfg.LocalPlayers {
			continue // a client never holds the host's own slots
		}
		d.roster[c.First] = e
		m.st.Have++
	}
	for i := m.cfg.LocalPlayers; i < len(m.names); i++ {
		m.names[i] = d.roster[i].Name // "" for a free slot
	}
	if away != m.st.Away {
		m.st.Away, m.until.away = away, now.Add(m.cfg.Grace)
	}
	back := m.backSeconds()
	for i := range d.roster {
		if d.roster[i].State == 2 {
			d.roster[i].Back = back
		}
	}
	m.sendRoster(greeting.RoleClient, d.roster)
}

func (d *hostDriver[S, I]) state() *S            { return d.h.State() }
func (d *hostDriver[S, I]) frame() rollnet.Frame { return d.h.Frame() }

func (d *hostDriver[S, I]) playout() (a, b *S, alpha float64, ok bool) {
	s := d.h.State()
	return s, s, 0, true
}

func (d *hostDriver[S, I]) checksum() (rollnet.Frame, uint32, bool) {
	frame := d.h.Frame() - 1
	s, err := d.h.ChecksumAt(frame)
	return frame, s, err == nil
}

func (d *hostDriver[S, I]) checksumAt(frame rollnet.Frame) (uint32, error) {
	return d.h.ChecksumAt(frame)
}

func (d *hostDriver[S, I]) stats(s Stats) (Stats, transport.Peer) {
	st := d.h.Stats()
	s.Rollbacks, s.Resimulated = uint64(st.Rollbacks), uint64(st.ResimulatedFrames)
	s.Rewinds = st.Rewinds
	var far transport.Peer
	d.cs = d.h.Clients(d.cs[:0])
	for _, c := range d.cs {
		s.SightsTooOld += c.SightsTooOld
		s.SightsTooNew += c.SightsTooNew
		s.SightJumps += c.SightJumps
		if c.Link.RTT >= s.RTT {
			s.RTT, far = c.Link.RTT, c.Peer
		}
		s.BytesSent += c.Link.BytesSent
		s.BytesReceived += c.Link.BytesReceived
	}
	return s, far
}

func (d *hostDriver[S, I]) token() (Token, bool) { return Token{}, false }

// seatOf: a host knows its clients' slots before their hellos say.
func (d *hostDriver[S, I]) seatOf(pe *peer, from transport.Peer) int {
	if d.h == nil {
		return helloSeat(pe)
	}
	return d.slotOf(from)
}

func (d *hostDriver[S, I]) seatPeer(int) transport.Peer { return "" }
func (d *hostDriver[S, I]) rosterFrom() transport.Peer  { return "" }
func (d *hostDriver[S, I]) parseRoster(b []byte) error  { return nil }

func (d *hostDriver[S, I]) close() {
	if d.h != nil {
		_ = d.h.Close()
	}
}

func (d *hostDriver[S, I]) sessions() sessions[S, I] { return sessions[S, I]{h: d.h} }
