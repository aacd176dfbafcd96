package greeting

import (
	"fmt"
	"time"

	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/transport"
)

// Announcement is what an authoritative host that is not a Match says of
// itself in its hello (see Announcer): the settings a client must repeat,
// as Host's Config has them.
type Announcement struct {
	// Name is the host's name ("" means "host").
	Name string
	// Players is the host's slots; FrameRate its ticks a second (0 means
	// 60); Settings the game's settings hash for the room.
	Players, FrameRate int
	Settings           uint64
	// Grace is how long an away client's slots wait for it, counted down
	// in the roster: the host's own grace (authority.DefaultGrace when
	// its HostConfig.Grace is 0), required.
	Grace time.Duration
	// MaxPeers bounds the peers whose names are kept (0 means 4 ×
	// Players + 4); a hello from another one is answered, its name not
	// kept.
	MaxPeers int
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Announcer is netplay's part of an authoritative host that runs its own
// authority.Host instead of a Match (a dedicated host command such as
// rollnet-host): give the host the Announcer as its transport. The
// Announcer takes netplay's messages off the transport before the host
// reads them, answers each hello with the host's (one datagram for one:
// no amplification), so that Connect finds the host, and a P2P peer, or a
// client with other settings, fails at once with ErrAuthorityRoom or
// ErrSettings; Roster sends every client the slots' names and who is
// away. Its methods are for the host's goroutine; it allocates nothing
// per frame once every client's name is known.
type Announcer struct {
	inner     transport.Transport
	me        Hello
	grace     time.Duration
	maxPeers  int
	now       func() time.Time
	names     map[transport.Peer]string
	clients   map[transport.Peer]bool
	away      []awayMark
	roster    []RosterEntry
	buf       []byte
	malformed uint64
	onMessage func(from transport.Peer, payload []byte)
}

type awayMark struct {
	peer  transport.Peer
	since time.Time
}

// NewAnnouncer wraps tr for a host announcing a. Closing the Announcer
// does not close tr.
func NewAnnouncer(tr transport.Transport, a Announcement) (*Announcer, error) {
	if a.FrameRate == 0 {
		a.FrameRate = 60
	}
	switch {
	case tr == nil:
		return nil, fmt.Errorf("%w: nil transport", ErrConfig)
	case a.Players < 1 || a.Players > wire.MaxPlayers:
		return nil, fmt.Errorf("%w: Players %d is outside [1, %d]", ErrConfig, a.Players, wire.MaxPlayers)
	case a.FrameRate < 1 || a.FrameRate > 1000:
		return nil, fmt.Errorf("%w: FrameRate %d is outside [1, 1000]", ErrConfig, a.FrameRate)
	case a.Grace <= 0 || a.MaxPeers < 0:
		return nil, fmt.Errorf("%w: Grace %v, MaxPeers %d", ErrConfig, a.Grace, a.MaxPeers)
	}
	if a.MaxPeers == 0 {
		a.MaxPeers = 4*a.Players + 4
	}
	if a.Now == nil {
		a.Now = time.Now
	}
	name := CleanName(a.Name)
	if name == "" {
		name = "host"
	}
	return &Announcer{
		inner: tr, grace: a.Grace, maxPeers: a.MaxPeers, now: a.Now,
		me: Hello{Role: RoleHost, Seat: NoSeat, Flags: FlagStarted, Delay: 1, Players: uint8(a.Players),
			FrameRate: uint16(a.FrameRate), Settings: a.Settings, Name: name},
		names:   make(map[transport.Peer]string, a.MaxPeers),
		clients: make(map[transport.Peer]bool, a.MaxPeers),
		away:    make([]awayMark, 0, a.Players),
		roster:  make([]RosterEntry, a.Players),
		buf:     make([]byte, 0, wire.MaxPacket),
	}, nil
}

// OnMessage sets f to receive the peers' Send messages (payload valid
// during the call).
func (a *Announcer) OnMessage(f func(from transport.Peer, payload []byte)) { a.onMessage = f }

// Name is the name peer gave in its hello, "" if none.
func (a *Announcer) Name(peer transport.Peer) string { return a.names[peer] }

// Malformed counts netplay messages dropped because they did not decode.
func (a *Announcer) Malformed() uint64 { return a.malformed }

func (a *Announcer) Local() transport.Peer                  { return a.inner.Local() }
func (a *Announcer) Send(to transport.Peer, b []byte) error { return a.inner.Send(to, b) }
func (a *Announcer) Close() error                           { return nil }

// SendBulk goes through the real transport's bulk path when it has one.
func (a *Announcer) SendBulk(to transport.Peer, b []byte) (bool, error) {
	if bs, ok := a.inner.(transport.BulkSender); ok {
		return bs.SendBulk(to, b)
	}
	err := a.inner.Send(to, b)
	return err == nil, err
}

// Receive returns the next datagram that is not netplay's, handling
// netplay's on the way.
func (a *Announcer) Receive(buf []byte) (int, transport.Peer, error) {
	for {
		n, from, err := a.inner.Receive(buf)
		if err != nil || n == 0 || buf[0] != AppByte {
			return n, from, err
		}
		a.handle(from, buf[:n])
	}
}

func (a *Announcer) handle(from transport.Peer, b []byte) {
	if len(b) < 2 {
		a.malformed++
		return
	}
	switch b[1] {
	case KindHello:
		h, _, err := ParseHello(b, a.names[from])
		if err != nil {
			a.malformed++
			return
		}
		if _, known := a.names[from]; known || len(a.names) < a.maxPeers {
			if a.names[from] != h.Name {
				a.names[from] = h.Name
			}
			if h.Role == RoleClient && !a.clients[from] {
				a.clients[from] = true
			}
		}
		if h.Flags&FlagHeard == 0 || h.Role != RoleClient || !a.clients[from] {
			a.reply(from)
		}
	case KindPing:
		_, stamp, err := ParseStamp(b)
		if err != nil {
			a.malformed++
			return
		}
		a.buf = AppendStamp(a.buf[:0], KindPong, stamp)
		_ = a.inner.Send(from, a.buf)
	case KindPong, KindRoster:
	case KindMessage:
		payload, err := ParseMessage(b)
		if err != nil {
			a.malformed++
			return
		}
		if a.onMessage != nil {
			a.onMessage(from, payload)
		}
	default:
		a.malformed++
	}
}

// reply answers a hello with the host's.
func (a *Announcer) reply(to transport.Peer) {
	h := a.me
	if _, ok := a.names[to]; ok {
		h.Flags |= FlagHeard
	}
	a.buf = h.Append(a.buf[:0])
	_ = a.inner.Send(to, a.buf)
}

// Roster sends every one of the host's n clients that said a netplay
// hello (a raw authority client never sees one) the slots' names (from
// the clients' hellos) and which are away, with how long they may still
// come back. client(i) describes the i-th (from authority.Host.Clients):
// its transport id, its first slot and whether it is away; a function
// rather than the host's own type, so that no package under internal/
// imports a mode. Call it a few times a second.
func (a *Announcer) Roster(n int, client func(i int) (peer transport.Peer, first int, away bool)) {
	now := a.now()
	for i := range a.roster {
		a.roster[i] = RosterEntry{}
	}
	k := 0
	for _, m := range a.away { // forget the marks of clients back or gone
		for i := range n {
			if peer, _, away := client(i); peer == m.peer && away {
				a.away[k] = m
				k++
				break
			}
		}
	}
	a.away = a.away[:k]
	for i := range n {
		peer, first, away := client(i)
		if first < 0 || first >= len(a.roster) {
			continue
		}
		e := RosterEntry{State: 1, Name: a.names[peer]}
		if away {
			since := a.awaySince(peer, now)
			e.State = 2
			e.Back = uint8(min(max(a.grace-now.Sub(since), 0)/time.Second, 255))
		}
		a.roster[first] = e
	}
	a.buf = AppendRoster(a.buf[:0], a.roster)
	for i := range n {
		if peer, _, away := client(i); !away && a.clients[peer] { // a client that speaks netplay
			_ = a.inner.Send(peer, a.buf)
		}
	}
}

// awaySince is when peer was first seen away, marking it now if new.
func (a *Announcer) awaySince(peer transport.Peer, now time.Time) time.Time {
	for _, m := range a.away {
		if m.peer == peer {
			return m.since
		}
	}
	if len(a.away) < cap(a.away) {
		a.away = append(a.away, awayMark{peer: peer, since: now})
	}
	return now
}

var _ transport.Transport = (*Announcer)(nil)
