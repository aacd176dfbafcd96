package netplay

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/p2p"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/webrtc"
)

// Mode is a peer's part in a match.
type Mode uint8

const (
	ModeP2P       Mode = iota + 1 // a P2P player (Join)
	ModeSpectator                 // a P2P spectator (Watch)
	ModeHost                      // an authoritative host, dedicated or listen (Host)
	ModeClient                    // an authoritative client (Connect)

	modeEither // HostOrConnect, until the room says which
)

// Defaults of Config.
const (
	DefaultFrameRate = 60
	DefaultTimeout   = 30 * time.Second
	// DefaultArchive is the frames every P2P player keeps for spectators
	// who join late and players who rejoin: ten minutes at 60 fps.
	DefaultArchive = 36000
	// capacity is the P2P rollback window: about half a second at 60 fps.
	capacity = 32
)

// Config says where a match is and what it plays. The zero value of every
// field but Players and one of Signal or Transport means its default.
type Config struct {
	// Signal is the signaling server (ws://HOST:PORT or wss://HOST) and
	// Room the room on it ("" pairs the next two joiners; rejoining needs
	// a name). RoomToken is the server's room token, if it wants one: it
	// is sent as the URL's token= query and never printed.
	Signal, Room, RoomToken string

	// Transport, instead of Signal, is a transport already connected
	// (transport/local in tests), and Peers the peers to greet on it; the
	// Match closes it.
	Transport transport.Transport
	Peers     []transport.Peer

	// Name is this player's name, shown to the others (at most MaxName
	// bytes of printable text; "" means "player").
	Name string

	// Players is the match's players: P2P seats (2 to 8), or an
	// authoritative host's slots (its own and one per client, 1 to 64),
	// which its clients must repeat. LocalPlayers is how many of them a
	// host plays itself (0: a dedicated host; 1: a listen host).
	Players, LocalPlayers int

	// FrameRate is the ticks a second (0 means 60): AdvanceFrame is called
	// this often (Ebitengine: ebiten.SetTPS(FrameRate)). Every peer must
	// agree, as on Settings, the game's own hash of what must match.
	FrameRate int
	Settings  uint64

	// InputDelay bounds the P2P input delay, chosen from the round trip
	// measured before the match (see the package documentation).
	InputDelay DelayBounds

	// Timeout bounds Connecting, and an authoritative client's wait for
	// its first host state (0 means 30 s).
	Timeout time.Duration

	// Tokens, when set, keeps this player's rejoin token: saved once the
	// match has one, loaded by the next Match of the same Room (which then
	// rejoins), deleted when the match ends or is closed.
	Tokens TokenStore

	// Archive is the frames of inputs each P2P player keeps for late
	// spectators and rejoiners (0 means DefaultArchive).
	Archive int

	// An authoritative host's choices (authority.HostConfig's): Grace is
	// how long an away client's slots and rejoin token wait for it (0
	// means 20 s), LateInput what a late input does (0: applied late).
	Grace     time.Duration
	LateInput authority.LateInput

	// OnMessage, when set, receives the other peers' Send messages, from
	// inside AdvanceFrame: seat is the sender's (-1 for a spectator or an
	// unseated peer), payload valid during the call.
	OnMessage func(seat int, name string, payload []byte)

	// Impair, when set, impairs the link both ways: an *impair.Config
	// (transport/impair), whose Wrap is called on the transport once it is
	// dialed. (An interface, so that a game that never sets it links none
	// of package impair.)
	Impair interface {
		Wrap(transport.Transport) (transport.Transport, error)
	}
	// Relay sends everything through the signaling server's TURN relay.
	Relay bool
	// WebRTC configures the transport (ICE servers, timeouts); netplay
	// sets its Accept and, for a loopback Signal, LoopbackOnly.
	WebRTC webrtc.Config

	// Net tunes the sessions' links (rollnet.NetConfig's timers, checksum
	// interval, rejoin window, handshake nonces); netplay sets its
	// FrameRate, Settings and Now from the fields above.
	Net rollnet.NetConfig

	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// peer is what a Match knows of one other peer.
type peer struct {
	id      transport.Peer
	h       hello
	heard   bool // its hello arrived
	heardMe bool // its hello says it has ours
	rtt     rttWindow
	added   bool // added as a spectator
}

// Match is one peer's part in a match, for either mode: see the package
// documentation. Its methods are for the game's goroutine.
type Match[S any, I comparable] struct {
	mode     Mode
	cfg      Config
	simulate func(*S, []I, rollnet.Frame)
	now      func() time.Time
	epoch    time.Time
	deadline time.Time

	dialc  chan dialed
	cancel context.CancelFunc
	rtc    *webrtc.Transport
	sig    *webrtc.SignalingAdapter
	tr     transport.Transport
	mx     mux
	room   string

	peers     map[transport.Peer]*peer
	order     []*peer          // in arrival order
	list      []transport.Peer // the peers greeted: list[:connected] have a channel open
	seatPeers []transport.Peer
	remote    []transport.Peer // the P2P seats' peers as the session was built
	connected int
	buf       []byte
	rbuf      []byte
	nextGreet time.Time
	malformed uint64

	hostMu sync.Mutex
	hostID transport.Peer // the authoritative host, once heard
	client bool           // this peer is an authoritative client (Accept's)
	placed *placement     // where the fleet placed this client (fleet.go), or nil
	reach  string         // what the background dial reaches ("": the signaling server)

	p  *p2p.Session[S, I]
	sp *p2p.Spectator[S, I]
	h  *authority.Host[S, I]
	c  *authority.Client[S, I]
	// auth drives h and c (authority.go): set by Host, Connect and
	// HostOrConnect alone, so a game that never calls them links none of
	// package authority.
	auth authSide[S, I]

	seat      int
	delay     int
	proposal  int // the input delay this peer proposes, +1; 0 while measuring
	names     []string
	token     Token
	rejoining bool // started from a stored token
	saved     bool
	evs       []rollnet.Event
	st        Status
	awayUntil time.Time
	intUntil  time.Time
	gone      []bool // P2P: seats whose players left
	lastTick  time.Time
	roster    []rosterEntry
	cs        []authority.HostClientStats // a host's clients, a buffer
	onSession func() error
	err       error
	closed    bool

	// The story and the figures (news.go).
	news        []string
	upAt        time.Time     // when the transport was up
	opened      time.Duration // from upAt to the first channel open
	netAt       time.Time     // when PeerInfo was last read
	netRTT      time.Duration
	route       string
	firstDesync rollnet.Frame
	spectators  int
	rejoins     int
	silent      map[transport.Peer]time.Time // peers interrupted, since when silent
	slotPeers   map[transport.Peer]int       // a host's clients told of
	quit        map[transport.Peer]bool      // a host's clients that quit
	joined      uint64                       // a host's clients joined and rejoined, told
	rejoinedN   uint64
	expired     uint64
	dropped     string              // the player (client) last dropped, while it may come back
	unverified  uint64              // an authoritative client's StatesUnverified, seen
	fastForward bool                // a spectator is catching up
	seatStats   []rollnet.PeerStats // P2P: each seat's link, as last read
	retired     rollnet.PeerStats   // P2P: the links seats had before their players came back
	rbAt        [8]time.Time        // the rollback count's samples, an eighth of a second apart
	rbN         [8]int
	rbI         int
}

func validate(mode Mode, cfg *Config) error {
	switch {
	case mode == ModeP2P || mode == ModeSpectator:
		if cfg.Players < 2 || cfg.Players > 8 {
			return fmt.Errorf("%w: Players %d is outside [2, 8]", ErrConfig, cfg.Players)
		}
	case cfg.Players < 1 || cfg.Players > wire.MaxPlayers:
		return fmt.Errorf("%w: Players %d is outside [1, %d]", ErrConfig, cfg.Players, wire.MaxPlayers)
	}
	if cfg.LocalPlayers < 0 || cfg.LocalPlayers > 1 || (cfg.LocalPlayers > 0 && mode != ModeHost && mode != modeEither) {
		return fmt.Errorf("%w: LocalPlayers %d (0, or 1 for a listen host)", ErrConfig, cfg.LocalPlayers)
	}
	if cfg.FrameRate == 0 {
		cfg.FrameRate = DefaultFrameRate
	}
	if cfg.FrameRate < 1 || cfg.FrameRate > 1000 {
		return fmt.Errorf("%w: FrameRate %d is outside [1, 1000]", ErrConfig, cfg.FrameRate)
	}
	if cfg.InputDelay == (DelayBounds{}) {
		cfg.InputDelay = DelayBounds{Min: 1, Max: 4}
	}
	if d := cfg.InputDelay; d.Min < 0 || d.Max < d.Min || d.Max > capacity/2 {
		return fmt.Errorf("%w: InputDelay %+v (0 <= Min <= Max <= %d)", ErrConfig, d, capacity/2)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Timeout < 0 {
		return fmt.Errorf("%w: Timeout %v", ErrConfig, cfg.Timeout)
	}
	if cfg.Archive == 0 {
		cfg.Archive = DefaultArchive
	}
	if cfg.Archive < 0 {
		return fmt.Errorf("%w: Archive %d", ErrConfig, cfg.Archive)
	}
	if cfg.Grace == 0 {
		cfg.Grace = grace
	}
	if cfg.Grace < 0 {
		return fmt.Errorf("%w: Grace %v", ErrConfig, cfg.Grace)
	}
	cfg.Name = cleanName(cfg.Name)
	if cfg.Name == "" {
		cfg.Name = "player"
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Signal != "" {
		if _, err := RoomURL(cfg.Signal, cfg.Room, cfg.RoomToken); err != nil {
			return err
		}
	}
	return nil
}

func start[S any, I comparable](mode Mode, cfg Config, simulate func(*S, []I, rollnet.Frame)) (*Match[S, I], error) {
	if err := oneDial(cfg); err != nil {
		return nil, err
	}
	return startWith[S, I](mode, cfg, simulate, dial, nil)
}

// startAuth is start for the authoritative modes (see Match.auth).
func startAuth[S any, I comparable](mode Mode, cfg Config, simulate func(*S, []I, rollnet.Frame)) (*Match[S, I], error) {
	if err := oneDial(cfg); err != nil {
		return nil, err
	}
	return startWith(mode, cfg, simulate, dial, authSide[S, I](authHalf[S, I]{}))
}

// oneDial refuses a Config of both or neither of Signal and Transport.
func oneDial(cfg Config) error {
	if (cfg.Signal == "") == (cfg.Transport == nil) {
		return fmt.Errorf("%w: set one of Signal and Transport", ErrConfig)
	}
	return nil
}

// startWith is start with the background dial (dial, the fleet's
// placement and QUIC dial: fleet.go, or ConnectQUIC's: quic.go).
func startWith[S any, I comparable](mode Mode, cfg Config, simulate func(*S, []I, rollnet.Frame),
	dial func(context.Context, *Config, func(transport.Peer) bool) dialed, auth authSide[S, I]) (*Match[S, I], error) {
	if simulate == nil {
		return nil, fmt.Errorf("%w: nil simulate", ErrConfig)
	}
	if auth == nil && mode != ModeP2P && mode != ModeSpectator {
		panic("netplay: an authoritative match started without its authSide") // a bug of this package
	}
	if err := validate(mode, &cfg); err != nil {
		return nil, err
	}
	m := &Match[S, I]{
		mode: mode, cfg: cfg, simulate: simulate, now: cfg.Now, auth: auth,
		peers:       map[transport.Peer]*peer{},
		slotPeers:   map[transport.Peer]int{},
		quit:        map[transport.Peer]bool{},
		firstDesync: rollnet.NoFrame,
		buf:         make([]byte, 0, wire.MaxPacket),
		rbuf:        make([]byte, transport.MaxDatagram),
		evs:         make([]rollnet.Event, 0, 32),
		seat:        -1,
		names:       make([]string, cfg.Players),
		gone:        make([]bool, cfg.Players),
	}
	m.epoch = m.now()
	m.deadline = m.epoch.Add(cfg.Timeout)
	m.mx.on = m.onApp
	m.st = Status{Phase: Connecting, Need: cfg.Players}
	if mode == ModeP2P || mode == ModeClient || mode == modeEither {
		if d := cfg.InputDelay; d.Min == d.Max {
			m.proposal = d.Min + 1
		}
		if cfg.Tokens != nil && cfg.Room != "" {
			tok, ok, err := cfg.Tokens.Load(cfg.Room)
			if err != nil {
				return nil, fmt.Errorf("netplay: loading the rejoin token: %w", err)
			}
			if ok && (tok.Mode == mode || mode == modeEither && tok.Mode == ModeClient) {
				m.token, m.rejoining = tok, true
			}
		}
	}
	if cfg.Transport != nil {
		m.ready(dialed{tr: cfg.Transport, room: cfg.Room, first: len(cfg.Peers) == 0})
		return m, nil
	}
	var accept func(transport.Peer) bool
	if mode == ModeClient || mode == modeEither {
		accept = func(p transport.Peer) bool {
			m.hostMu.Lock()
			defer m.hostMu.Unlock()
			return !m.client || m.hostID == "" || p == m.hostID
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout)
	m.cancel = cancel
	m.dialc = make(chan dialed, 1)
	go func() { m.dialc <- dial(ctx, &m.cfg, accept) }()
	return m, nil
}

// Join joins a P2P match as a player: the room's players are seated by
// their transport ids, sorted (the same seats on every peer); with
// Config.Tokens holding this room's token, it rejoins its seat instead.
func Join[S any, I comparable](cfg Config, simulate func(s *S, inputs []I, frame rollnet.Frame)) (*Match[S, I], error) {
	return start(ModeP2P, cfg, simulate)
}

// Watch watches a P2P match: it is fed by the player in seat 0, from the
// match's first frame.
func Watch[S any, I comparable](cfg Config, simulate func(s *S, inputs []I, frame rollnet.Frame)) (*Match[S, I], error) {
	return start(ModeSpectator, cfg, simulate)
}

// Host hosts an authoritative match: dedicated (Config.LocalPlayers 0) or
// listen (1: this process plays slot 0). It announces itself to every
// peer in the room.
func Host[S any, I comparable](cfg Config, simulate func(s *S, inputs []I, frame rollnet.Frame)) (*Match[S, I], error) {
	return startAuth[S, I](ModeHost, cfg, simulate)
}

// HostOrConnect is the listen server of a room's first player: it hosts
// (Host, with Config.LocalPlayers 1) when the room is empty as it joins
// (with Config.Transport: when Config.Peers is empty), and connects to
// the room's host otherwise (Connect, with this room's stored token
// rejoining). Mode says which once it knows (0 before).
func HostOrConnect[S any, I comparable](cfg Config, simulate func(s *S, inputs []I, frame rollnet.Frame)) (*Match[S, I], error) {
	cfg.LocalPlayers = 1
	return startAuth[S, I](modeEither, cfg, simulate)
}

// Connect joins an authoritative match as a client of the room's host,
// found by its announcement (the client connects to no one else); with
// Config.Tokens holding this room's token, it rejoins its slots.
func Connect[S any, I comparable](cfg Config, simulate func(s *S, inputs []I, frame rollnet.Frame)) (*Match[S, I], error) {
	return startAuth[S, I](ModeClient, cfg, simulate)
}

// ready takes the transport once dialed.
func (m *Match[S, I]) ready(d dialed) {
	m.rtc, m.sig, m.tr, m.room = d.rtc, d.sig, d.tr, d.room
	m.upAt = m.now()
	m.placed = d.placed
	if d.greet != nil {
		m.cfg.Peers = d.greet
	}
	m.mx.inner = d.tr
	if m.mode == modeEither {
		m.mode = ModeClient
		if d.first {
			m.mode = ModeHost
		} else {
			m.cfg.LocalPlayers = 0
		}
	}
	if m.mode == ModeClient {
		m.hostMu.Lock()
		m.client = true
		m.hostMu.Unlock()
	}
}

// OnSession sets f, called once the session exists, before its first
// frame: to set the state before frame 0 (*State()), attach a recorder or
// keep states (through P2P(), Spectator(), AuthHost(), AuthClient()). An
// error it returns ends the match (AdvanceFrame returns it). Set it before
// the first AdvanceFrame.
func (m *Match[S, I]) OnSession(f func() error) { m.onSession = f }

// started runs OnSession's function on the new session.
func (m *Match[S, I]) started() error {
	if m.onSession == nil {
		return nil
	}
	return m.onSession()
}

func (m *Match[S, I]) fail(err error) {
	if err != nil && m.err == nil {
		m.err = err
	}
}

// Mode is the match's mode (for HostOrConnect, 0 until the room said).
func (m *Match[S, I]) Mode() Mode {
	if m.mode == modeEither {
		return 0
	}
	return m.mode
}

// Seat is this player's seat (P2P) or first slot (authoritative), -1
// before it has one and for a spectator or a dedicated host.
func (m *Match[S, I]) Seat() int { return m.seat }

// Name is the name of the player in seat (or slot), "" if unknown (on a
// host, once a client quit its slot, or its grace ran out).
func (m *Match[S, I]) Name(seat int) string {
	if seat < 0 || seat >= len(m.names) {
		return ""
	}
	return m.names[seat]
}

// Peer is the transport id of the player in seat (P2P), "" for this
// player's own seat and while unknown: for what netplay does not wrap
// (P2P().PeerStats, WebRTC().PeerInfo).
func (m *Match[S, I]) Peer(seat int) transport.Peer {
	if seat < 0 || seat >= m.cfg.Players || m.mode != ModeP2P && m.mode != ModeSpectator {
		return ""
	}
	if m.mode == ModeSpectator {
		for _, pe := range m.order {
			if pe.heard && pe.h.Role == rolePlayer && int(pe.h.Seat) == seat {
				return pe.id
			}
		}
		return ""
	}
	if id := m.remoteSeats()[seat]; id != "" {
		return id // from its hello: where a rejoiner came back from
	}
	if seat < len(m.remote) {
		return m.remote[seat]
	}
	return ""
}

// Room is the room joined (the server's name for it once dialed).
func (m *Match[S, I]) Room() string { return m.room }

// InputDelay is the match's input delay (P2P), once agreed.
func (m *Match[S, I]) InputDelay() int { return m.delay }

// P2P, Spectator, AuthHost and AuthClient are the session underneath (nil
// until built, and for the other modes), for what netplay does not wrap
// (recording, statistics).
func (m *Match[S, I]) P2P() *p2p.Session[S, I]             { return m.p }
func (m *Match[S, I]) Spectator() *p2p.Spectator[S, I]     { return m.sp }
func (m *Match[S, I]) AuthHost() *authority.Host[S, I]     { return m.h }
func (m *Match[S, I]) AuthClient() *authority.Client[S, I] { return m.c }

// Transport is the real transport (nil while connecting): Config.Transport,
// or the WebRTC one (a *impair.Transport around it with Config.Impair).
func (m *Match[S, I]) Transport() transport.Transport { return m.tr }

// WebRTC is the WebRTC transport joined through Config.Signal (nil while
// connecting and with Config.Transport), for what netplay does not wrap:
// ICE's round trip and route (PeerInfo), its drop counts (Stats).
func (m *Match[S, I]) WebRTC() *webrtc.Transport { return m.rtc }

// Token is this player's rejoin token, once the match gave one.
func (m *Match[S, I]) Token() (Token, bool) { return m.token, m.saved || m.token != (Token{}) }

// Events is the session's events the last AdvanceFrame read (and folded
// into its Status), for a game that reports them itself: valid until the
// next AdvanceFrame.
func (m *Match[S, I]) Events() []rollnet.Event { return m.evs }

// Malformed counts netplay messages dropped because they did not decode.
func (m *Match[S, I]) Malformed() uint64 { return m.malformed }

// built reports whether the session exists.
func (m *Match[S, I]) built() bool { return m.p != nil || m.sp != nil || m.h != nil || m.c != nil }

// State is the state to draw: the P2P present (predicted where inputs are
// missing), the spectator's, the host's, or the authoritative client's
// predicted present (draw what the player controls from it, the rest from
// Playout). Nil before the session exists.
func (m *Match[S, I]) State() *S {
	switch {
	case m.p != nil:
		return m.p.State()
	case m.sp != nil:
		return m.sp.State()
	case m.h != nil || m.c != nil:
		return m.auth.state(m)
	}
	return nil
}

// Playout is, for an authoritative client, the two host states around
// the render time and the blend factor between them (draw what others
// control as a + alpha×(b-a)); ok is false until there are host states. In
// the other modes it is State, State, 0.
func (m *Match[S, I]) Playout() (a, b *S, alpha float64, ok bool) {
	if m.c != nil {
		return m.auth.playout(m)
	}
	s := m.State()
	return s, s, 0, s != nil
}

// Frame is the frame of State.
func (m *Match[S, I]) Frame() rollnet.Frame {
	switch {
	case m.p != nil:
		return m.p.Frame()
	case m.sp != nil:
		return m.sp.Frame()
	case m.h != nil || m.c != nil:
		return m.auth.frame(m)
	}
	return 0
}

// Send sends payload (1 to MaxMessage bytes) to every peer heard: small
// messages of the game's own (a chat line, a rematch request), unreliable
// like every datagram. It allocates nothing.
func (m *Match[S, I]) Send(payload []byte) error {
	if m.closed {
		return ErrClosed
	}
	if len(payload) == 0 || len(payload) > MaxMessage {
		return ErrMessage
	}
	if m.tr == nil {
		return nil
	}
	m.buf = appendMessage(m.buf[:0], payload)
	for _, pe := range m.order {
		if pe.heard {
			_ = m.tr.Send(pe.id, m.buf)
		}
	}
	return nil
}

// AdvanceFrame is the one call a game makes per tick: it adds in as this
// player's input (a dedicated host and a spectator ignore it), advances
// the match, and returns what it is doing. The conditions a game waits
// out (connecting, the handshake, a peer's late inputs, a wait to let
// peers catch up, a rejoin's replay) are in the Status, not errors; an
// error is fatal (wrong settings, the wrong kind of room, a refused
// rejoin, a timeout, a closed Match), and is returned again by every
// later call.
func (m *Match[S, I]) AdvanceFrame(in I) (Status, error) {
	if m.closed {
		return Status{Phase: Ended, Ended: EndClosed}, ErrClosed
	}
	if m.err != nil || m.st.Phase == Ended {
		return m.st, m.err
	}
	m.st.Advanced = false
	m.evs = m.evs[:0]
	now := m.now()
	if m.tr == nil {
		select {
		case d := <-m.dialc:
			m.dialc = nil // received: Close must not wait for it again
			if d.err != nil {
				if errors.Is(d.err, context.DeadlineExceeded) {
					d.err = fmt.Errorf("%w reaching %s within %v: %w", ErrTimeout, m.reached(), m.cfg.Timeout, d.err)
				}
				m.fail(d.err)
				return m.st, m.err
			}
			m.ready(d)
		default:
			return m.timeout(now)
		}
	}
	m.noteOpen(now)
	if !m.built() {
		m.connectTick(now)
		if m.err != nil {
			return m.st, m.err
		}
		if !m.built() {
			return m.timeout(now)
		}
	}
	var err error
	switch {
	case m.p != nil:
		err = m.tickP2P(in)
	case m.sp != nil:
		err = m.tickSpectator()
	case m.h != nil || m.c != nil:
		err = m.auth.tick(m, in, now)
	}
	m.fail(err)
	m.afterTick(now)
	return m.st, m.err
}

// reached is what the background dial reaches, for errors.
func (m *Match[S, I]) reached() string {
	if m.reach == "" {
		return "the signaling server"
	}
	return m.reach
}

func (m *Match[S, I]) timeout(now time.Time) (Status, error) {
	if !now.Before(m.deadline) {
		what := "the other players"
		switch {
		case m.tr == nil:
			what = m.reached()
		case m.mode == ModeClient:
			what = "the host to announce itself"
		case m.mode == ModeSpectator:
			what = "the match's seat-0 player"
		}
		m.fail(fmt.Errorf("%w: %v waiting for %s in room %q (%d of %d players heard)", ErrTimeout, m.cfg.Timeout, what, m.room, m.st.Have, m.st.Need))
	}
	return m.st, m.err
}

// greet sends a hello (and, while measuring, a ping) to every peer on the
// transport, every interval.
func (m *Match[S, I]) greet(now time.Time, interval time.Duration) {
	if now.Before(m.nextGreet) {
		return
	}
	m.nextGreet = now.Add(interval)
	m.list = m.list[:0]
	if m.rtc != nil {
		m.list = m.rtc.Peers(m.list)
	}
	m.connected = len(m.list)
	m.list = append(m.list, m.cfg.Peers...)
	for _, id := range m.list {
		m.sendHello(id)
		if !m.built() {
			m.buf = appendStamp(m.buf[:0], kindPing, uint64(now.Sub(m.epoch)))
			_ = m.tr.Send(id, m.buf)
		}
	}
}

func (m *Match[S, I]) myHello(to transport.Peer) hello {
	h := hello{
		Seat: noSeat, Players: uint8(m.cfg.Players), FrameRate: uint16(m.cfg.FrameRate),
		Settings: m.cfg.Settings, Name: m.cfg.Name, Delay: uint8(m.proposal),
	}
	switch m.mode {
	case ModeP2P:
		h.Role = rolePlayer
		if m.rejoining && m.p == nil {
			h.Role = roleRejoiner
		}
	case ModeSpectator:
		h.Role = roleSpectator
	case ModeHost:
		h.Role = roleHost
	case ModeClient:
		h.Role = roleClient
	}
	if m.seat >= 0 {
		h.Seat = uint8(m.seat)
	}
	if m.built() {
		h.Flags |= flagStarted
		h.Delay = uint8(m.delay + 1)
	}
	if pe := m.peers[to]; pe != nil && pe.heard {
		h.Flags |= flagHeard
	}
	return h
}

func (m *Match[S, I]) sendHello(to transport.Peer) {
	m.buf = m.myHello(to).Append(m.buf[:0])
	_ = m.tr.Send(to, m.buf)
}

// onApp handles one netplay message from the transport.
func (m *Match[S, I]) onApp(from transport.Peer, b []byte) {
	if len(b) < 2 {
		m.malformed++
		return
	}
	switch b[1] {
	case kindHello:
		pe := m.peers[from]
		var old string
		if pe != nil {
			old = pe.h.Name
		}
		h, _, err := parseHello(b, old)
		if err != nil {
			m.malformed++
			return
		}
		if pe == nil {
			pe = &peer{id: from}
			m.peers[from] = pe
			m.order = append(m.order, pe)
		}
		pe.h, pe.heard, pe.heardMe = h, true, h.Flags&flagHeard != 0
		if !pe.heardMe {
			m.sendHello(from)
		}
		m.fail(m.check(pe))
		m.admit(pe)
	case kindPing, kindPong:
		kind, stamp, err := parseStamp(b)
		if err != nil {
			m.malformed++
			return
		}
		if kind == kindPing {
			m.buf = appendStamp(m.buf[:0], kindPong, stamp)
			_ = m.tr.Send(from, m.buf)
			return
		}
		if pe := m.peers[from]; pe != nil {
			if d := m.now().Sub(m.epoch) - time.Duration(stamp); d >= 0 && d < time.Minute {
				pe.rtt.add(d)
			}
		}
	case kindMessage:
		payload, err := parseMessage(b)
		if err != nil {
			m.malformed++
			return
		}
		if m.cfg.OnMessage != nil {
			seat, name := -1, ""
			if pe := m.peers[from]; pe != nil {
				name = pe.h.Name
				if pe.h.Seat != noSeat {
					seat = int(pe.h.Seat)
				}
			}
			if m.h != nil { // a host knows its clients' slots before their hellos say
				seat = m.auth.slotOf(m, from)
			}
			m.cfg.OnMessage(seat, name, payload)
		}
	case kindRoster:
		if (m.mode != ModeClient || from != m.hostPeer()) && (m.mode != ModeSpectator || from != m.hostOfSpectator()) {
			return
		}
		if err := m.parseRoster(b); err != nil {
			m.malformed++
		}
	default:
		m.malformed++
	}
}

// check refuses, while connecting, a room of the wrong kind, and a peer
// with other settings. Only the peer in the wrong room fails: a P2P
// player or spectator that hears a host, a client that hears a P2P peer;
// a host ignores everyone and a P2P peer ignores clients and spectators
// (they fail on their own), and a running match ignores them all.
func (m *Match[S, I]) check(pe *peer) error {
	h := pe.h
	if m.built() && m.mode != ModeClient {
		return nil
	}
	switch m.mode {
	case ModeP2P, ModeSpectator:
		switch h.Role {
		case roleHost:
			return fmt.Errorf("%w: %s %q is %v", ErrAuthorityRoom, pe.id, h.Name, h.Role)
		case roleClient, roleSpectator:
			return nil // they check the players
		}
	case ModeClient:
		switch h.Role {
		case roleClient:
			return nil // another client: not ours to check
		case rolePlayer, roleSpectator, roleRejoiner:
			if m.built() {
				return nil
			}
			return fmt.Errorf("%w: %s %q is %v", ErrP2PRoom, pe.id, h.Name, h.Role)
		}
	case ModeHost:
		return nil // a client checks the host's settings, and fails alone
	}
	if int(h.Players) != m.cfg.Players || int(h.FrameRate) != m.cfg.FrameRate || h.Settings != m.cfg.Settings {
		return fmt.Errorf("%w: %q plays %d players at %d fps with settings %#x, this peer %d at %d fps with %#x",
			ErrSettings, h.Name, h.Players, h.FrameRate, h.Settings, m.cfg.Players, m.cfg.FrameRate, m.cfg.Settings)
	}
	return nil
}

// connectTick runs one tick before the session exists: read, greet,
// and build the session once its peers are known.
func (m *Match[S, I]) connectTick(now time.Time) {
	for {
		_, _, err := m.mx.Receive(m.rbuf) // session datagrams before the session: dropped
		if err != nil {
			if !errors.Is(err, transport.ErrNoPacket) {
				m.fail(fmt.Errorf("netplay: transport: %w", err))
			}
			break
		}
	}
	if m.err != nil {
		return
	}
	m.greet(now, 100*time.Millisecond)
	switch m.mode {
	case ModeP2P:
		if m.rejoining {
			m.fail(m.tryRejoin())
		} else {
			m.fail(m.tryJoin())
		}
	case ModeSpectator:
		m.fail(m.tryWatch())
	case ModeClient, ModeHost:
		m.fail(m.auth.start(m))
	}
}

// afterTick keeps greeting, saves the token, and times the countdowns.
func (m *Match[S, I]) afterTick(now time.Time) {
	if m.tr != nil && m.built() {
		m.greet(now, time.Second)
	}
	if !m.saved {
		if tok, ok := m.newToken(); ok { // Token's, kept in Config.Tokens if set
			m.token, m.saved = tok, true
			if m.cfg.Tokens != nil && m.cfg.Room != "" {
				m.fail(m.cfg.Tokens.Save(tok))
			}
		}
	}
	m.st.Frame = m.Frame()
	m.st.InputDelay = m.delay
	if now.Sub(m.rbAt[m.rbI]) >= time.Second/8 { // Stats.RollbacksPerSecond's window
		m.rbI = (m.rbI + 1) % len(m.rbAt)
		m.rbAt[m.rbI] = now
	}
	m.rbN[m.rbI] = m.st.Rollbacks
	m.st.Timeout = 0
	if m.st.Interrupted != "" {
		m.st.Timeout = max(m.intUntil.Sub(now), 0)
	}
	m.st.ComeBack = 0
	if m.st.Away != "" {
		m.st.ComeBack = max(m.awayUntil.Sub(now), 0)
	}
	if m.st.Phase == Ended && m.cfg.Tokens != nil && m.st.Ended != EndHostGone {
		_ = m.cfg.Tokens.Delete(m.cfg.Room)
	}
}

func (m *Match[S, I]) newToken() (Token, bool) {
	switch {
	case m.p != nil:
		if t, ok := m.p.RejoinToken(); ok {
			return Token{Mode: ModeP2P, Room: m.cfg.Room, Seat: m.seat, P2P: t}, true
		}
	case m.c != nil:
		return m.auth.token(m)
	}
	return Token{}, false
}

// nameOf is the name a peer gave, or its id.
func (m *Match[S, I]) nameOf(id transport.Peer) string {
	if pe := m.peers[id]; pe != nil && pe.heard {
		return pe.h.Name
	}
	return string(id)
}

// sortedPeers is the peers heard, by id.
func (m *Match[S, I]) sortedPeers() []*peer {
	out := slices.Clone(m.order)
	slices.SortFunc(out, func(a, b *peer) int { return cmp.Compare(a.id, b.id) })
	return out
}

// Close leaves the match (a P2P player says goodbye, so the others do not
// wait for it) and deletes the rejoin token: a player who quits does not
// come back. It is safe to call more than once.
func (m *Match[S, I]) Close() error {
	if m.closed {
		return nil
	}
	m.closed = true
	if m.cancel != nil {
		m.cancel()
	}
	if m.tr == nil && m.dialc != nil {
		if d := <-m.dialc; d.err == nil {
			m.rtc, m.sig, m.tr = d.rtc, d.sig, d.tr
		}
	}
	switch {
	case m.p != nil:
		_ = m.p.Close()
	case m.sp != nil:
		_ = m.sp.Close()
	case m.h != nil || m.c != nil:
		m.auth.close(m)
	}
	if m.cfg.Tokens != nil && m.cfg.Room != "" && m.err == nil {
		_ = m.cfg.Tokens.Delete(m.cfg.Room)
	}
	var err error
	if m.tr != nil {
		err = m.tr.Close()
	}
	if m.rtc != nil {
		_ = m.rtc.Close()
	}
	if m.sig != nil {
		_ = m.sig.Close()
	}
	return err
}

// ConfirmedChecksum is the checksum of the newest frame every player's
// inputs confirm and whose state is still held (the frame peers compare:
// min(ConfirmedFrame, Frame-1)); ok is false before there is one, and for
// an authoritative client (its host checks its states for it).
func (m *Match[S, I]) ConfirmedChecksum() (frame rollnet.Frame, sum uint32, ok bool) {
	switch {
	case m.p != nil:
		frame = min(m.p.ConfirmedFrame(), m.p.Frame()-1)
		s, err := m.p.ChecksumAt(frame)
		return frame, s, err == nil
	case m.sp != nil:
		frame = m.sp.Frame() - 1
		s, err := m.sp.ChecksumAt(frame)
		return frame, s, err == nil
	case m.h != nil:
		frame = m.auth.frame(m) - 1
		s, err := m.auth.checksumAt(m, frame)
		return frame, s, err == nil
	}
	return 0, 0, false
}

// ChecksumAt is the checksum of frame's state while it is held (P2P,
// spectator, host); ok is false otherwise.
func (m *Match[S, I]) ChecksumAt(frame rollnet.Frame) (uint32, bool) {
	switch {
	case m.p != nil:
		s, err := m.p.ChecksumAt(frame)
		return s, err == nil && frame <= m.p.ConfirmedFrame()
	case m.sp != nil:
		s, err := m.sp.ChecksumAt(frame)
		return s, err == nil
	case m.h != nil:
		s, err := m.auth.checksumAt(m, frame)
		return s, err == nil
	}
	return 0, false
}
