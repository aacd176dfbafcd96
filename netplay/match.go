package netplay

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/fleet"
	"github.com/rollnet/rollnet/internal/greeting"
	"github.com/rollnet/rollnet/internal/signalurl"
	"github.com/rollnet/rollnet/internal/wire"
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
)

// Defaults of Config.
const (
	defaultFrameRate = 60
	defaultTimeout   = 30 * time.Second
	// defaultArchive is the frames every P2P player keeps for spectators
	// who join late and players who rejoin: ten minutes at 60 fps.
	defaultArchive = 36000
	// capacity is the P2P rollback window: about half a second at 60 fps.
	capacity = 32
)

// Config says where a match is and what it plays. The zero value of every
// field but Players and one of Signal, Rooms, Transport or QUIC means its
// default.
type Config struct {
	// Signal is the signaling server (ws://HOST:PORT or wss://HOST) and
	// Room the room on it ("" pairs the next two joiners; rejoining needs
	// a name). RoomToken is the server's room token, if it wants one: it
	// is sent as the URL's token= query and never printed.
	Signal, Room, RoomToken string

	// Rooms, instead of Signal, is the rendezvous service whose Room the
	// match joins (Signal's is a webrtc.RoomDialer): its transport is the
	// match's, its peers (Peers, AtJoin) those greeted.
	Rooms transport.RoomDialer

	// Transport, instead of Signal, is a transport already connected
	// (transport/local in tests), and Peers the peers to greet on it; the
	// Match closes it.
	Transport transport.Transport
	Peers     []transport.Peer

	// QUIC, instead of Signal, is a dedicated host Connect dials directly
	// over QUIC (transport/quic) or, for a udp:// URL, transport/udp,
	// without a signaling server: Room then
	// names the match for the game and the token store only. See the
	// package documentation.
	QUIC QUICHost

	// Fleet, with Signal (ws://, wss://, http:// or https://HOST:PORT),
	// has Connect ask the fleet behind that signaling server for a match
	// of Fleet.Game in Fleet.Room (Room is Fleet.Room) and dial the host
	// it is placed on over QUIC (a native build only). A host that dies or
	// drains mid-match shows as Status.Interrupted naming it, then
	// Status.Ended EndHostGone; to play on, Connect again: the room is
	// placed anew on a live host.
	Fleet *fleet.Request

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

	// An authoritative host's choices (authority.HostConfig's): Grace is
	// how long an away client's slots and rejoin token wait for it (0
	// means 20 s), LateInput what a late input does (0: applied late).
	Grace     time.Duration
	LateInput authority.LateInput
	// WaitForPlayers makes a host hold frame 0 (a lobby: Status Connecting,
	// Have of Need players there) until this many players are connected,
	// its own included, then start the match for all: every client's
	// world starts at frame 0. LobbyTimeout starts it with whoever is
	// there after that long (0: wait however long). 0 starts at once.
	// A client admitted to a lobby waits for the start however long
	// (Status.Waiting says so), Timeout not counting.
	WaitForPlayers int
	LobbyTimeout   time.Duration

	// Absence is what a match does while a player is away:
	// rollnet.AbsencePredict (the zero value) plays on with its last
	// input repeated; AbsenceFreeze stops every peer at one agreed frame
	// (Status.Awaiting names the player, AwaitedFor says since when)
	// until it rejoins or is dropped; AbsenceForfeit stops the match
	// there for good (Status.Ended EndForfeit, Status.Away the player;
	// every peer holds the same state: the game decides). In P2P a
	// player is away once its peer is silent for Tuning.Net.DisconnectTimeout
	// (or gone), dropped when its Tuning.Net.RejoinWindow passes, and every
	// player must choose the same; spectators follow. In the
	// authoritative mode (not the entity mode) the host's choice rules
	// (a client's is not used): a player is away once its connection is
	// silent for Tuning.Net.DisconnectNotify, dropped when Grace passes.
	Absence rollnet.Absence
	// PlayingSlots, for an authoritative host, when above 0: slots
	// 0..PlayingSlots-1 are the players', the rest spectators' (a client
	// whose input moves nothing), whom Absence never waits for.
	PlayingSlots int

	// NoRepair turns P2P desync repair off (p2p.Config.NoRepair): a
	// desync sets Status.Desync and the match runs on with the
	// simulations apart, for a game that ends the match itself when it
	// sees it. By default the peer whose state is not the truth's (the
	// majority's of three players or more, else seat 0's) takes the
	// truth's and the match goes on: Status.Repaired says so for a few
	// seconds, News tells it, Stats.Repairs counts it. Every player must
	// choose the same. (An authoritative client is repaired by every
	// host state: the host is the truth.)
	NoRepair bool

	// OnMessage, when set, receives the other peers' Send messages, from
	// inside AdvanceFrame: seat is the sender's (-1 for a spectator or an
	// unseated peer), payload valid during the call.
	OnMessage func(seat int, name string, payload []byte)

	// Tuning holds the knobs a game rarely turns.
	Tuning Tuning

	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Tuning holds a Match's knobs a game rarely turns, beside Config (as
// authority's, quic's and webrtc's Tuning): the zero value of every field
// means its default.
type Tuning struct {
	// Archive is the frames of inputs each P2P player keeps for late
	// spectators and rejoiners (0 means 36000: ten minutes at 60 fps).
	Archive int

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
	// sets its Accept and, for a loopback Config.Signal, LoopbackOnly.
	WebRTC webrtc.Config

	// Net tunes the sessions' links (rollnet.NetConfig's timers, checksum
	// interval, rejoin window, handshake nonces); netplay sets its
	// FrameRate, Settings and Now from Config's.
	Net rollnet.NetConfig
}

// peer is what a Match knows of one other peer.
type peer struct {
	id      transport.Peer
	h       greeting.Hello
	heard   bool // its hello arrived
	heardMe bool // its hello says it has ours
	rtt     rttWindow
	added   bool // added as a spectator
	// stranger: a P2P peer that came after this player's match was made
	// and claimed a part in it (strange): ignored, counted, refused.
	stranger bool
}

// peerSet is the peers a Match greets and has heard.
type peerSet struct {
	byID      map[transport.Peer]*peer
	order     []*peer          // in arrival order
	list      []transport.Peer // the peers greeted: list[:connected] have a channel open
	connected int
	nextGreet time.Time
}

// link is the transport: dialed in the background, then the match's.
type link struct {
	dialc  chan dialed
	cancel context.CancelFunc
	rm     transport.Room      // the room dialed (nil: Config.Transport, a host dialed)
	atJoin []transport.Peer    // rm's members when this peer joined, oldest first
	tr     transport.Transport // the match's: rm (impaired if asked), Config.Transport, the host's
	mx     mux
	room   string
	reach  string     // what the background dial reaches ("": the signaling server)
	placed *placement // where the fleet placed this client (fleet.go), or nil
	upAt   time.Time  // when the transport was up
}

// gate is what a transport accepts (the dial's Accept, on the
// transport's goroutines): anyone but the strangers refused; an
// authoritative client anyone until it knows its host, then the host
// alone.
type gate struct {
	mu      sync.Mutex
	host    transport.Peer // the authoritative host, once heard
	client  bool           // this peer is an authoritative client
	refused []transport.Peer
}

func (g *gate) accept(p transport.Peer) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if slices.Contains(g.refused, p) {
		return false
	}
	return !g.client || g.host == "" || p == g.host
}

// refuse adds p to the peers refused (at most maxRefused: a stranger is
// also disconnected, which keeps it out on its own).
func (g *gate) refuse(p transport.Peer) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.refused) < maxRefused {
		g.refused = append(g.refused, p)
	}
}

// maxRefused bounds the strangers a gate keeps.
const maxRefused = 64

func (g *gate) hostPeer() transport.Peer {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.host
}

// tokenState is this player's rejoin token.
type tokenState struct {
	t         Token
	rejoining bool // started from a stored token
	saved     bool // the match gave one (and Config.Tokens keeps it)
}

// Match is one peer's part in a match, for either mode: see the package
// documentation. Its methods are for the game's goroutine.
type Match[S any, I comparable] struct {
	kind     kind[S, I]
	cfg      Config
	simulate func(*S, []I, rollnet.Frame)
	d        driver[S, I] // the mode's, once the transport is up
	link     link
	gate     gate
	peers    peerSet

	epoch, deadline time.Time
	buf, rbuf       []byte

	seat, delay int
	proposal    int // the input delay this peer proposes, +1; 0 while measuring
	names       []string
	gone        []bool // seats whose players left
	tok         tokenState
	evs         []rollnet.Event
	st          Status
	until       struct{ away, interrupted, repaired time.Time } // Status.ComeBack's, Timeout's and Repaired's ends
	onSession   func() error
	err         error
	closed      bool
	story       story // News and Stats (news.go)
}

func validate[S any, I comparable](k *kind[S, I], cfg *Config) error {
	lo, hi := k.minSeats, k.maxSeats
	if cfg.Players < lo || cfg.Players > hi {
		return fmt.Errorf("%w: Players %d is outside [%d, %d]", errConfig, cfg.Players, lo, hi)
	}
	if cfg.LocalPlayers < 0 || cfg.LocalPlayers > 1 || (cfg.LocalPlayers > 0 && !k.listen) {
		return fmt.Errorf("%w: LocalPlayers %d (0, or 1 for a listen host)", errConfig, cfg.LocalPlayers)
	}
	if cfg.FrameRate == 0 {
		cfg.FrameRate = defaultFrameRate
	}
	if cfg.FrameRate < 1 || cfg.FrameRate > 1000 {
		return fmt.Errorf("%w: FrameRate %d is outside [1, 1000]", errConfig, cfg.FrameRate)
	}
	if d := cfg.InputDelay; d.Min == 0 && d.Max == 0 {
		cfg.InputDelay.Min, cfg.InputDelay.Max = 1, 4
	}
	if d := cfg.InputDelay; d.Min < 0 || d.Max < d.Min || d.Max > capacity/2 {
		return fmt.Errorf("%w: InputDelay %+v (0 <= Min <= Max <= %d)", errConfig, d, capacity/2)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = defaultTimeout
	}
	if cfg.Timeout < 0 {
		return fmt.Errorf("%w: Timeout %v", errConfig, cfg.Timeout)
	}
	if cfg.Tuning.Archive == 0 {
		cfg.Tuning.Archive = defaultArchive
	}
	if cfg.Tuning.Archive < 0 {
		return fmt.Errorf("%w: Tuning.Archive %d", errConfig, cfg.Tuning.Archive)
	}
	if cfg.Grace == 0 {
		cfg.Grace = authority.DefaultGrace
	}
	if cfg.Grace < 0 {
		return fmt.Errorf("%w: Grace %v", errConfig, cfg.Grace)
	}
	if !cfg.Absence.Valid() || (cfg.Absence != rollnet.AbsencePredict && k.entities) {
		return fmt.Errorf("%w: Absence %v (the entity mode takes only AbsencePredict, for now)", errConfig, cfg.Absence)
	}
	if cfg.WaitForPlayers < 0 || cfg.WaitForPlayers > cfg.Players || cfg.LobbyTimeout < 0 {
		return fmt.Errorf("%w: WaitForPlayers %d (0 to Players) or LobbyTimeout %v (>= 0)", errConfig, cfg.WaitForPlayers, cfg.LobbyTimeout)
	}
	cfg.Name = greeting.CleanName(cfg.Name)
	if cfg.Name == "" {
		cfg.Name = "player"
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Signal != "" {
		if _, err := signalurl.Room(cfg.Signal, cfg.Room, cfg.RoomToken); err != nil {
			return fmt.Errorf("%w: Signal wants ws://HOST:PORT or wss://HOST, got %q", errConfig, signalurl.Redact(cfg.Signal))
		}
	}
	return nil
}

// The constructors' kinds.
func p2pKind[S any, I comparable]() kind[S, I] {
	return kind[S, I]{mode: ModeP2P, minSeats: 2, maxSeats: p2pSeats, rejoin: ModeP2P, proposes: true, choose: newP2P[S, I]}
}

func spectatorKind[S any, I comparable]() kind[S, I] {
	return kind[S, I]{mode: ModeSpectator, minSeats: 2, maxSeats: p2pSeats, choose: newSpectator[S, I]}
}

func hostKind[S any, I comparable]() kind[S, I] {
	return kind[S, I]{mode: ModeHost, minSeats: 1, maxSeats: wire.MaxPlayers, listen: true, choose: newHost[S, I]}
}

func clientKind[S any, I comparable]() kind[S, I] {
	return kind[S, I]{mode: ModeClient, minSeats: 1, maxSeats: wire.MaxPlayers, rejoin: ModeClient, proposes: true, choose: newClient[S, I]}
}

func eitherKind[S any, I comparable]() kind[S, I] {
	return kind[S, I]{minSeats: 1, maxSeats: wire.MaxPlayers, listen: true, rejoin: ModeClient, proposes: true, choose: newHostOrClient[S, I]}
}

func start[S any, I comparable](k kind[S, I], cfg Config, simulate func(*S, []I, rollnet.Frame)) (*Match[S, I], error) {
	if cfg.QUIC != (QUICHost{}) || cfg.Fleet != nil {
		return nil, fmt.Errorf("%w: QUIC and Fleet are Connect's", errConfig)
	}
	if n := btoi(cfg.Signal != "") + btoi(cfg.Rooms != nil) + btoi(cfg.Transport != nil); n != 1 {
		return nil, fmt.Errorf("%w: set one of Signal, Rooms and Transport", errConfig)
	}
	return startWith(k, cfg, simulate, dial)
}

// startWith is start with the background dial (dial, the fleet's
// placement and QUIC dial: fleet.go, or Config.QUIC's: quic.go).
func startWith[S any, I comparable](k kind[S, I], cfg Config, simulate func(*S, []I, rollnet.Frame),
	dial func(context.Context, *Config, func(transport.Peer) bool) dialed) (*Match[S, I], error) {
	if simulate == nil && k.lagcomp != nil {
		simulate = func(s *S, in []I, f rollnet.Frame) { k.lagcomp(s, in, f, &authority.Sights[S]{}) }
	}
	if simulate == nil {
		return nil, fmt.Errorf("%w: nil simulate", errConfig)
	}
	if err := validate(&k, &cfg); err != nil {
		return nil, err
	}
	m := &Match[S, I]{
		kind: k, cfg: cfg, simulate: simulate,
		peers: peerSet{byID: map[transport.Peer]*peer{}},
		buf:   make([]byte, 0, wire.MaxPacket),
		rbuf:  make([]byte, transport.MaxDatagram),
		evs:   make([]rollnet.Event, 0, 32),
		seat:  -1,
		names: make([]string, cfg.Players),
		gone:  make([]bool, cfg.Players),
		story: story{firstDesync: rollnet.NoFrame, delayFrom: rollnet.NoFrame},
	}
	m.epoch = cfg.Now()
	m.deadline = m.epoch.Add(cfg.Timeout)
	m.link.mx.on = m.onApp
	m.st = Status{Phase: Connecting, Need: cfg.Players}
	if k.proposes {
		if d := cfg.InputDelay; d.Min == d.Max {
			m.proposal = d.Min + 1
		}
	}
	if k.rejoin != 0 && cfg.Tokens != nil && cfg.Room != "" {
		tok, ok, err := cfg.Tokens.Load(cfg.Room)
		if err != nil {
			return nil, fmt.Errorf("netplay: loading the rejoin token: %w", err)
		}
		if ok && tok.Mode == k.rejoin {
			m.tok = tokenState{t: tok, rejoining: true}
		}
	}
	if cfg.Transport != nil {
		m.ready(dialed{tr: cfg.Transport, name: cfg.Room, first: len(cfg.Peers) == 0})
		return m, nil
	}
	accept := m.gate.accept
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout)
	m.link.cancel = cancel
	m.link.dialc = make(chan dialed, 1)
	go func() { m.link.dialc <- dial(ctx, &m.cfg, accept) }()
	return m, nil
}

// Join joins a P2P match as a player: the room's players are seated by
// their transport ids, sorted (the same seats on every peer); with
// Config.Tokens holding this room's token, it rejoins its seat instead.
func Join[S any, I comparable](cfg Config, simulate func(s *S, inputs []I, frame rollnet.Frame)) (*Match[S, I], error) {
	return start(p2pKind[S, I](), cfg, simulate)
}

// Watch watches a P2P match: it is fed by the player in seat 0, from the
// match's first frame.
func Watch[S any, I comparable](cfg Config, simulate func(s *S, inputs []I, frame rollnet.Frame)) (*Match[S, I], error) {
	return start(spectatorKind[S, I](), cfg, simulate)
}

// Host hosts an authoritative match: dedicated (Config.LocalPlayers 0) or
// listen (1: this process plays slot 0). It announces itself to every
// peer in the room.
//
// With the Entities option, the match is in the entity mode
// (EntityConfig).
func Host[S any, I comparable](cfg Config, simulate func(s *S, inputs []I, frame rollnet.Frame), opts ...Option[S, I]) (*Match[S, I], error) {
	k := hostKind[S, I]()
	if err := k.apply(opts); err != nil {
		return nil, err
	}
	return start(k, cfg, simulate)
}

// HostOrConnect is the listen server of a room's first player: it hosts
// (Host, with Config.LocalPlayers 1) when the room is empty as it joins
// (with Config.Transport: when Config.Peers is empty), and connects to
// the room's host otherwise (Connect, with this room's stored token
// rejoining). Mode says which once it knows (0 before).
func HostOrConnect[S any, I comparable](cfg Config, simulate func(s *S, inputs []I, frame rollnet.Frame), opts ...Option[S, I]) (*Match[S, I], error) {
	cfg.LocalPlayers = 1
	k := eitherKind[S, I]()
	if err := k.apply(opts); err != nil {
		return nil, err
	}
	return start(k, cfg, simulate)
}

// Connect joins an authoritative match as a client of the room's host,
// found by its announcement (the client connects to no one else); with
// Config.Tokens holding this room's token, it rejoins its slots. With
// Config.QUIC it dials that dedicated host instead, and with Config.Fleet
// the host the fleet places the match on: it returns at once and dials in
// the background (Status.Phase Connecting until then; a host that does not
// answer in Config.Timeout, or a refused placement, is the error of
// AdvanceFrame).
//
// With the Entities option, the match is in the entity mode
// (EntityConfig): the host must be hosting entities of the same
// Capacity, Size and input type.
func Connect[S any, I comparable](cfg Config, simulate func(s *S, inputs []I, frame rollnet.Frame), opts ...Option[S, I]) (*Match[S, I], error) {
	k := clientKind[S, I]()
	if err := k.apply(opts); err != nil {
		return nil, err
	}
	switch {
	case cfg.QUIC != (QUICHost{}):
		return connectQUIC(k, cfg, simulate)
	case cfg.Fleet != nil:
		return connectFleet(k, cfg, simulate)
	}
	return start(k, cfg, simulate)
}

// ready takes the transport once dialed, and chooses the driver.
func (m *Match[S, I]) ready(d dialed) {
	l := &m.link
	l.rm, l.tr, l.room = d.room, d.tr, d.name
	if d.room != nil {
		l.atJoin = d.room.AtJoin(nil)
	}
	l.upAt = m.cfg.Now()
	l.placed = d.placed
	if d.greet != nil {
		m.cfg.Peers = d.greet
	}
	l.mx.inner = d.tr
	m.d = m.kind.choose(m, d.first)
}

// OnSession sets f, called once the session exists, before its first
// frame: to set the state before frame 0 (*State()). An error it returns
// ends the match (AdvanceFrame returns it). Set it before the first
// AdvanceFrame.
func (m *Match[S, I]) OnSession(f func() error) { m.onSession = f }

// started runs OnSession's function on the new session, then starts the
// match in phase: this player named at its seat, every peer heard
// admitted, greeted at once.
func (m *Match[S, I]) started(phase Phase) error {
	if m.onSession != nil {
		if err := m.onSession(); err != nil {
			return err
		}
	}
	m.st.Phase = phase
	if m.seat >= 0 {
		m.names[m.seat] = m.cfg.Name
	}
	for _, pe := range m.peers.order {
		m.admit(pe)
	}
	m.peers.nextGreet = m.cfg.Now()
	return nil
}

func (m *Match[S, I]) fail(err error) {
	if err != nil && m.err == nil {
		m.err = err
	}
}

func (m *Match[S, I]) netConfig() rollnet.NetConfig {
	n := m.cfg.Tuning.Net
	n.FrameRate, n.Settings, n.Now = m.cfg.FrameRate, m.cfg.Settings, m.cfg.Now
	return n
}

// built reports whether the session exists.
func (m *Match[S, I]) built() bool { return m.d != nil && m.d.built() }

// Mode is the match's mode (for HostOrConnect, 0 until the room said).
func (m *Match[S, I]) Mode() Mode {
	if m.d != nil {
		return m.d.mode()
	}
	return m.kind.mode
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
// player's own seat, while unknown and in the authoritative mode.
func (m *Match[S, I]) Peer(seat int) transport.Peer {
	if seat < 0 || seat >= m.cfg.Players || m.d == nil {
		return ""
	}
	return m.d.seatPeer(seat)
}

// Room is the room joined (the server's name for it once dialed).
func (m *Match[S, I]) Room() string { return m.link.room }

// Transport is the real transport (nil while connecting): Config.Transport,
// or the WebRTC one (an impair.Transport around it with Tuning.Impair).
func (m *Match[S, I]) Transport() transport.Transport { return m.link.tr }

// Token is this player's rejoin token, once the match gave one.
func (m *Match[S, I]) Token() (Token, bool) {
	return m.tok.t, m.tok.saved || m.tok.t != (Token{})
}

// Events is the session's events the last AdvanceFrame drained (and
// folded into its Status), for a game that reports them itself: valid
// until the next AdvanceFrame.
func (m *Match[S, I]) Events() []rollnet.Event { return m.evs }

// State is the state to draw: the P2P present (predicted where inputs are
// missing), the spectator's, the host's, or the authoritative client's
// predicted present (draw what the player controls from it, the rest from
// Playout). Nil before the session exists.
func (m *Match[S, I]) State() *S {
	if !m.built() {
		return nil
	}
	return m.d.state()
}

// Playout is, for an authoritative client, the two host states around
// the render time and the blend factor between them (draw what others
// control as a + alpha×(b-a)); ok is false until there are host states. In
// the other modes it is State, State, 0.
func (m *Match[S, I]) Playout() (a, b *S, alpha float64, ok bool) {
	if !m.built() {
		return nil, nil, 0, false
	}
	return m.d.playout()
}

// Frame is the frame of State.
func (m *Match[S, I]) Frame() rollnet.Frame {
	if !m.built() {
		return 0
	}
	return m.d.frame()
}

// Send sends payload (1 to MaxMessage bytes) to every peer heard: small
// messages of the game's own (a chat line, a rematch request), unreliable
// like every datagram. It allocates nothing. A payload out of that range
// fails with transport.ErrTooLarge.
func (m *Match[S, I]) Send(payload []byte) error {
	if m.closed {
		return errClosed
	}
	if len(payload) == 0 || len(payload) > MaxMessage {
		return errMessage
	}
	if m.link.tr == nil {
		return nil
	}
	m.buf = greeting.AppendMessage(m.buf[:0], payload)
	for _, pe := range m.peers.order {
		if pe.heard {
			_ = m.link.tr.Send(pe.id, m.buf)
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
// later call, but for the lobby's ErrTimeout (in the room, short of
// players, for Config.Timeout): returned once, a later call waits
// another Timeout (a game may ask its player whether to keep waiting).
func (m *Match[S, I]) AdvanceFrame(in I) (Status, error) {
	if m.closed {
		return Status{Phase: Ended, Ended: EndClosed, Frame: m.st.Frame}, errClosed
	}
	if m.err != nil || m.st.Phase == Ended {
		return m.st, m.err
	}
	m.st.Advanced = false
	m.evs = m.evs[:0]
	now := m.cfg.Now()
	if m.link.tr == nil {
		select {
		case d := <-m.link.dialc:
			m.link.dialc = nil // received: Close must not wait for it again
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
	if !m.d.built() {
		m.connectTick(now)
		if m.err != nil {
			return m.st, m.err
		}
		if !m.d.built() {
			return m.timeout(now)
		}
	}
	m.fail(m.d.tick(in, now))
	m.afterTick(now)
	return m.st, m.err
}

// reached is what the background dial reaches, for errors.
func (m *Match[S, I]) reached() string {
	if m.link.reach == "" {
		return "the signaling server"
	}
	return m.link.reach
}

func (m *Match[S, I]) timeout(now time.Time) (Status, error) {
	if !now.Before(m.deadline) {
		what := m.reached()
		if m.d != nil {
			what = m.d.awaits()
		}
		err := fmt.Errorf("%w: %v waiting for %s in room %q (%d of %d players heard)", ErrTimeout, m.cfg.Timeout, what, m.link.room, m.st.Have, m.st.Need)
		if m.link.tr != nil && m.err == nil { // in the room, short of players: a later call waits on
			m.deadline = now.Add(m.cfg.Timeout)
			return m.st, err
		}
		m.fail(err)
	}
	return m.st, m.err
}

// greet sends a hello (and, while measuring, a ping) to every peer on the
// transport, every interval.
func (m *Match[S, I]) greet(now time.Time, interval time.Duration) {
	ps := &m.peers
	if now.Before(ps.nextGreet) {
		return
	}
	ps.nextGreet = now.Add(interval)
	ps.list = ps.list[:0]
	if m.link.rm != nil {
		ps.list = m.link.rm.Peers(ps.list)
	}
	ps.connected = len(ps.list)
	ps.list = append(ps.list, m.cfg.Peers...)
	for _, id := range ps.list {
		m.sendHello(id)
		if !m.d.built() {
			m.buf = greeting.AppendStamp(m.buf[:0], greeting.KindPing, uint64(now.Sub(m.epoch)))
			_ = m.link.tr.Send(id, m.buf)
		}
	}
}

func (m *Match[S, I]) myHello(to transport.Peer) greeting.Hello {
	h := greeting.Hello{
		Role: m.d.greetsAs(), Seat: greeting.NoSeat, Players: uint8(m.cfg.Players), FrameRate: uint16(m.cfg.FrameRate),
		Settings: m.cfg.Settings, Name: m.cfg.Name, Delay: uint8(m.proposal),
	}
	if m.seat >= 0 {
		h.Seat = uint8(m.seat)
	}
	if m.d.built() {
		h.Flags |= greeting.FlagStarted
		h.Delay = uint8(m.delay + 1)
	}
	if pe := m.peers.byID[to]; pe != nil && pe.heard {
		h.Flags |= greeting.FlagHeard
	}
	return h
}

func (m *Match[S, I]) sendHello(to transport.Peer) {
	m.buf = m.myHello(to).Append(m.buf[:0])
	_ = m.link.tr.Send(to, m.buf)
}

// onApp handles one netplay message from the transport.
func (m *Match[S, I]) onApp(from transport.Peer, b []byte) {
	if len(b) < 2 {
		m.story.malformed++
		return
	}
	switch b[1] {
	case greeting.KindHello:
		pe := m.peers.byID[from]
		var old string
		if pe != nil {
			old = pe.h.Name
		}
		h, _, err := greeting.ParseHello(b, old)
		if err != nil {
			m.story.malformed++
			return
		}
		if pe == nil {
			pe = &peer{id: from}
			m.peers.byID[from] = pe
			m.peers.order = append(m.peers.order, pe)
		}
		pe.h, pe.heard, pe.heardMe = h, true, h.Flags&greeting.FlagHeard != 0
		if !pe.heardMe {
			m.sendHello(from)
		}
		m.fail(m.d.check(pe))
		m.admit(pe)
	case greeting.KindPing, greeting.KindPong:
		kind, stamp, err := greeting.ParseStamp(b)
		if err != nil {
			m.story.malformed++
			return
		}
		if kind == greeting.KindPing {
			m.buf = greeting.AppendStamp(m.buf[:0], greeting.KindPong, stamp)
			_ = m.link.tr.Send(from, m.buf)
			return
		}
		if pe := m.peers.byID[from]; pe != nil {
			if d := m.cfg.Now().Sub(m.epoch) - time.Duration(stamp); d >= 0 && d < time.Minute {
				pe.rtt.add(d)
			}
		}
	case greeting.KindMessage:
		payload, err := greeting.ParseMessage(b)
		if err != nil {
			m.story.malformed++
			return
		}
		if m.cfg.OnMessage != nil {
			pe := m.peers.byID[from]
			name := ""
			if pe != nil {
				name = pe.h.Name
			}
			m.cfg.OnMessage(m.d.seatOf(pe, from), name, payload)
		}
	case greeting.KindRoster:
		if from != m.d.rosterFrom() || from == "" {
			return
		}
		if err := m.d.parseRoster(b); err != nil {
			m.story.malformed++
		}
	default:
		m.story.malformed++
	}
}

// helloSeat is the seat pe's hello gives (-1: none, or no hello).
func helloSeat(pe *peer) int {
	if pe == nil || pe.h.Seat == greeting.NoSeat {
		return -1
	}
	return int(pe.h.Seat)
}

// admit takes what a peer's hello says into the running match.
func (m *Match[S, I]) admit(pe *peer) {
	if pe.heard && !pe.stranger {
		m.d.admit(pe)
	}
}

// seatName names a P2P player at the seat its hello gives.
func (m *Match[S, I]) seatName(pe *peer) {
	if h := pe.h; h.Role == greeting.RolePlayer && h.Seat != greeting.NoSeat && int(h.Seat) < len(m.names) {
		m.names[h.Seat] = h.Name
	}
}

// checkSettings refuses a peer whose players, frame rate or settings
// differ from this one's. Only the peer in the wrong room fails: a P2P
// player or spectator that hears a host, a client that hears a P2P peer;
// a host ignores everyone and a P2P peer ignores clients and spectators
// (they fail on their own), and a running match ignores them all (the
// drivers' check). A P2P peer takes a claim only from the peers it is
// matched with (earlier, and the P2P driver's seating): a stranger's
// claim fails the stranger.
func (m *Match[S, I]) checkSettings(pe *peer) error {
	h := pe.h
	switch {
	case int(h.Players) != m.cfg.Players || int(h.FrameRate) != m.cfg.FrameRate:
		// Another game, most likely (a dedicated host's name says which):
		// the hashes would say nothing more.
		return fmt.Errorf("%w: %q plays %d players at %d fps, this peer %d at %d fps",
			ErrSettings, h.Name, h.Players, h.FrameRate, m.cfg.Players, m.cfg.FrameRate)
	case h.Settings != m.cfg.Settings:
		return fmt.Errorf("%w: %q plays %d players at %d fps as this peer, with other game settings (Config.Settings %#x there, %#x here)",
			ErrSettings, h.Name, h.Players, h.FrameRate, h.Settings, m.cfg.Settings)
	}
	return nil
}

// connectTick runs one tick before the session exists: read, greet,
// and build the session once its peers are known.
func (m *Match[S, I]) connectTick(now time.Time) {
	for {
		_, _, err := m.link.mx.Receive(m.rbuf) // session datagrams before the session: dropped
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
	m.fail(m.d.connect())
}

// afterTick keeps greeting, saves the token, and times the countdowns.
func (m *Match[S, I]) afterTick(now time.Time) {
	m.greet(now, time.Second)
	if !m.tok.saved {
		if tok, ok := m.d.token(); ok { // Token's, kept in Config.Tokens if set
			m.tok.t, m.tok.saved = tok, true
			if m.cfg.Tokens != nil && m.cfg.Room != "" {
				m.fail(m.cfg.Tokens.Save(tok))
			}
		}
	}
	m.st.Frame = m.d.frame()
	m.st.InputDelay = m.inputDelay()
	m.story.sampleRollbacks(now, m.st.Rollbacks)
	m.st.Timeout = 0
	if m.st.Interrupted != "" {
		m.st.Timeout = max(m.until.interrupted.Sub(now), 0)
	}
	if m.st.Repaired != "" && !now.Before(m.until.repaired) {
		m.st.Repaired = ""
	}
	m.st.ComeBack = 0
	if m.st.Away != "" {
		m.st.ComeBack = max(m.until.away.Sub(now), 0)
	}
	if m.st.Phase == Ended {
		m.ended()
	}
}

// ended clears what a match over no longer does: it waits for nobody
// (the awaited player, the late one, the one interrupted) and nobody may
// come back; Away stays, naming who left. The rejoin token is deleted
// unless the host went away.
func (m *Match[S, I]) ended() {
	m.st.Waiting, m.st.Interrupted, m.st.Timeout = "", "", 0
	m.st.Awaiting, m.st.AwaitedAt, m.st.AwaitedFor = "", rollnet.NoFrame, 0
	m.st.ComeBack = 0
	if m.cfg.Tokens != nil && m.st.Ended != EndHostGone {
		_ = m.cfg.Tokens.Delete(m.cfg.Room)
	}
}

// inputDelay is the P2P input delay now: as chosen, or as it last
// changed following the network.
func (m *Match[S, I]) inputDelay() int {
	if m.story.delayChanges > 0 {
		return m.story.delay
	}
	return m.delay
}

// earlier reports whether id was in the room when this peer joined it
// (the room's AtJoin), or Config.Peers names it: a peer this one is
// matched with whatever it claims, since this one came to it.
func (m *Match[S, I]) earlier(id transport.Peer) bool {
	return slices.Contains(m.link.atJoin, id) || slices.Contains(m.cfg.Peers, id)
}

// later is the peers heard that are not earlier, oldest first: in the
// room's order of arrival when it has one (transport.Arrivals), else in
// the order their first hellos came. A member of the room that arrived
// but is not heard yet is the zero peer in its place, so that a seat is
// not given past it.
func (m *Match[S, I]) later() []*peer {
	var out []*peer
	if ar, ok := m.link.rm.(transport.Arrivals); ok {
		for _, id := range ar.Arrived(nil) {
			if m.earlier(id) {
				continue
			}
			pe := m.peers.byID[id]
			if pe == nil || !pe.heard {
				pe = &peer{id: id}
			}
			out = append(out, pe)
		}
		return out
	}
	for _, pe := range m.peers.order {
		if pe.heard && !m.earlier(pe.id) {
			out = append(out, pe)
		}
	}
	return out
}

// strange marks pe a stranger: a peer that joined after this player's
// match was made (or its seats taken) and claims a part in it. Its claim
// is ignored, counted (Stats.Strangers), and it is refused: its
// datagrams are dropped from now on (transport.Expecter, once the
// session expects its peers) and the transport does not connect to it
// again (the dial's Accept).
func (m *Match[S, I]) strange(pe *peer) {
	if pe.stranger {
		return
	}
	pe.stranger = true
	m.story.strangers++
	m.gate.refuse(pe.id)
	var tr transport.Transport = m.link.tr
	if m.link.rm != nil {
		tr = m.link.rm // under Tuning.Impair's wrapper
	}
	if d, ok := tr.(transport.Disconnecter); ok {
		_ = d.Disconnect(pe.id)
	}
}

// nameOf is the name a peer gave, or its id.
func (m *Match[S, I]) nameOf(id transport.Peer) string {
	if pe := m.peers.byID[id]; pe != nil && pe.heard {
		return pe.h.Name
	}
	return string(id)
}

// Close leaves the match (a P2P player says goodbye, so the others do not
// wait for it) and deletes the rejoin token: a player who quits does not
// come back. It is safe to call more than once.
func (m *Match[S, I]) Close() error {
	if m.closed {
		return nil
	}
	m.closed = true
	l := &m.link
	if l.cancel != nil {
		l.cancel()
	}
	if l.tr == nil && l.dialc != nil {
		if d := <-l.dialc; d.err == nil {
			l.rm, l.tr = d.room, d.tr
		}
	}
	if m.d != nil {
		m.d.close()
	}
	if m.cfg.Tokens != nil && m.cfg.Room != "" && m.err == nil {
		_ = m.cfg.Tokens.Delete(m.cfg.Room)
	}
	var err error
	if l.tr != nil {
		err = l.tr.Close()
	}
	if l.rm != nil {
		_ = l.rm.Close() // and leave the room
	}
	return err
}

// ConfirmedChecksum is the checksum of the newest frame whose state is
// agreed and still held, the same way in every mode, so a game logs
// agreement through one call: in P2P the newest frame every player's
// inputs confirm (the frame peers compare: min(ConfirmedFrame, Frame-1));
// for a spectator and a host, the newest frame simulated; for an
// authoritative client, the newest host state it checked by the host's
// checksum (equal to the host's ChecksumAt of that frame). ok is false
// before there is one.
func (m *Match[S, I]) ConfirmedChecksum() (frame rollnet.Frame, sum uint32, ok bool) {
	if !m.built() {
		return 0, 0, false
	}
	return m.d.checksum()
}

// errNoChecksum: ChecksumAt before the session exists.
var errNoChecksum = errors.New("netplay: no checksums: no session yet")

// ChecksumAt is the checksum of frame's state while it is held (P2P, once
// every player's inputs confirm it; spectator; host; an authoritative
// client, for the host states it holds verified); an error otherwise.
func (m *Match[S, I]) ChecksumAt(frame rollnet.Frame) (uint32, error) {
	if !m.built() {
		return 0, errNoChecksum
	}
	return m.d.checksumAt(frame)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
