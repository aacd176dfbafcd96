package p2p

// A P2P session runs the core session for a set of players spread over
// peers, GGPO style: local players' inputs go out to every peer, remote
// players' inputs come in, late ones roll the state back. One tick of a
// game loop:
//
//	cfg := p2p.Config[Buttons]{
//		Session: session.Config[Buttons]{Players: 2, InputDelay: 2, Capacity: 32},
//		Remote:  []transport.Peer{"", "bob"}, // player 0 is local, player 1 is bob's
//	}
//	p, err := p2p.New[World](cfg, tr, simulate)
//	...
//	for range ticker { // FrameRate times a second
//		if p.WaitRecommendation() > 0 {
//			p.Poll() // running ahead: skip this tick, keep the network going
//		} else {
//			p.AddLocalInput(0, readButtons())
//			err := p.AdvanceFrame() // ErrNotSynchronized, session.ErrPredictionLimit: try again next tick
//		}
//		events = p.Events(events[:0]) // Disconnected, DesyncDetected, ...
//		draw(p.State())
//	}

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/inputbytes"
	"github.com/rollnet/rollnet/internal/link"
	"github.com/rollnet/rollnet/internal/window"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
)

// Config configures a P2P session. The zero value of every field except
// Session.Players and Remote means its documented default.
type Config[I comparable] struct {
	// Session configures the core session (players, capacity, input delay,
	// prediction). Its Predict, if set, guesses inputs not yet heard.
	Session session.Config[I]
	// Remote says where each player is: Remote[p] is the peer that holds
	// player p, and the zero Peer means player p is local. Its length is
	// Session.Players. Several players may sit behind one peer; at least
	// one player must be local.
	Remote []transport.Peer
	// Spectators are peers that receive every player's confirmed inputs
	// from this session (their host) and play along behind. More can join
	// later with AddSpectator; at most MaxSpectators in all.
	Spectators []transport.Peer
	// SpectatorArchive is how many frames of confirmed inputs, from the
	// first, this session keeps so that a spectator added with
	// AddSpectator during the match can replay it from the start (a
	// spectator always starts from the initial state). It costs
	// SpectatorArchive × Players × input size bytes, allocated by New.
	// 0 means none: AddSpectator then works only while the input history
	// (a few hundred frames) still holds the match's first frame. For
	// example 36000 keeps ten minutes at 60 fps.
	SpectatorArchive int
	// Net holds the protocol's settings: frame rate, checksum interval,
	// timeouts, clock, nonce source.
	Net rollnet.NetConfig
	// Rejoin, when set, makes this session a player coming back into a
	// running match: the token is the one RejoinToken returned in the
	// session that dropped (saved by the game), the rest of the config the
	// same as then but for addresses: this session's own may be new, and
	// Remote must name where the other players are now (one that came
	// back from a new address is known there). The session asks the other
	// peers to take it back, replays the match from its first frame
	// without drawing, and plays on from the frame they agree on. See
	// Rejoin.
	Rejoin rollnet.RejoinToken
	// Open is the set of players (bit p for player p) whose slots are open
	// when the match starts: their peers are absent, their input is the
	// zero input until a player takes the slot with Join. Every peer of the
	// match, the joiners too, must list the same Open (it is in the
	// settings hash). At least one player must be present.
	Open uint64
	// Join makes this session a late joiner taking its (open) slots: like
	// Rejoin, without a token. Its local players must be in Open.
	Join bool
	// Absence is what the match does while a player is away (disconnected):
	// AbsencePredict (the zero value) plays on with its input frozen;
	// AbsenceFreeze stops every peer at one agreed frame until it is back
	// or its rejoin window passes; AbsenceForfeit stops them there for good
	// (see absence.go). Every player peer must choose the same (it is in
	// the settings hash); spectators follow whatever their host does.
	Absence rollnet.Absence
	// MinInputDelay and MaxInputDelay, when MaxInputDelay is above 0, make
	// the input delay follow the network during the match, within
	// [MinInputDelay, MaxInputDelay] from Session.InputDelay (which must
	// lie between them): the peers agree on a new delay when the round
	// trip moves past a hysteresis, at an agreed frame, with no input
	// skipped (EventDelayChanged; see delay.go for what happens to local
	// input on that frame). MaxInputDelay may exceed Session.InputDelay by
	// at most the prediction window, and at most 255. Both 0 (the
	// default): the delay stays Session.InputDelay. Every player peer must
	// choose the same (it is in the settings hash).
	MinInputDelay, MaxInputDelay int
	// NoRepair turns desync repair off: a desync is reported
	// (EventDesyncDetected) and the match runs on with the simulations
	// apart, as before protocol 5, for a game that ends the match itself.
	// By default the peer whose state is not the truth's takes the
	// truth's state and plays on (EventDesyncRepaired; see repair.go).
	// Every player peer must choose the same (it is in the settings hash).
	NoRepair bool
	// Arbiter is the seat (player) whose peer holds the truth when a
	// desync's checksums have no majority: always with two player peers,
	// with more a tie. 0 by default; when its peer is gone, the lowest
	// seat present. Every player peer must choose the same (it is in the
	// settings hash).
	Arbiter int
}

// MaxSpectators is the most spectators one P2P session feeds, listed in
// Config.Spectators and added with AddSpectator together. Each costs
// the host a packet per tick.
const MaxSpectators = 16

// DefaultRejoinWindow is the rejoin window a zero
// NetConfig.RejoinWindow means: how long after its disconnection a player
// may come back (Session.Rejoin, Config.Rejoin).
const DefaultRejoinWindow = link.DefaultRejoinWindow

// maxArchive bounds Config.SpectatorArchive (about 78 hours at 60 fps).
const maxArchive = 1 << 24

// Session is a rollback session over a network. See the top of p2p.go for a
// game loop. A Session is not safe for concurrent use.
type Session[S any, I comparable] struct {
	ep    link.Endpoint
	core  *session.Session[S, I]
	codec inputbytes.Codec[I]
	user  func(player int, last I, frame rollnet.Frame) I

	players  int
	size     int
	delay    int
	maxPred  int
	capacity int
	owner    []int // per player: the index of the link holding it, -1 local
	local    uint64
	stride   int // bytes of one frame of the local players' inputs
	all      uint64
	multi    bool // two or more remote player peers: connection status is exchanged and agreed
	nPlayers int  // player links (links[:nPlayers]); spectators follow

	hist     history
	archive  archive         // confirmed inputs from the first frame (archive.go)
	recv     []rollnet.Frame // per player: newest frame heard contiguously (local: committed)
	fed      []rollnet.Frame // per player: newest frame given to the core
	disc     []bool          // per player: disconnected
	frozenAt []rollnet.Frame // per player: the agreed last real frame of a disconnected player, or NoFrame
	frozen   []I             // per player: the input repeated after frozenAt
	added    []rollnet.Frame // per local player: the frame of the newest AddLocalInput
	newest   rollnet.Frame   // newest local frame committed (sent to peers)

	absence  rollnet.Absence
	dl       follower        // the delay that follows the network (delay.go)
	awaitAt  []rollnet.Frame // per player: the agreed frame no peer simulates while it is awaited, or NoFrame
	awaitT   []int64         // per player: when it was first awaited (the session's clock)
	awaiting uint64          // players awaited (awaitAt set)
	forfeit  bool            // a player forfeited: the match stops at stopAt() for good

	running  bool
	unagreed bool // a player may be disconnected and not frozen yet: agree looks
	wait     int
	checks   link.Checks
	rec      recording[S, I] // SetRecorder's and KeepStates' (forensics.go)

	inBuf   []byte
	inStat  []wire.PeerStatus
	block   []byte
	outStat []wire.PeerStatus
	status  [][]wire.PeerStatus // per player link: its peer's connection status of every player, as last reported

	feeds [MaxSpectators]feed // per spectator link: its bulk feed (feed.go)
	acks  [MaxSpectators]specAcks
	rj    rejoiner[S, I] // identity, rejoins of others, our own rejoin (p2p_rejoin.go)
	rp    repairer[S]    // desync repair (repair.go)
	gate  rebindGate     // strangers let in while a slot can be taken (p2p_rebind.go)
}

// New returns a P2P session for cfg over t, advancing a state of type S
// with simulate (which must be deterministic; see the package
// documentation). The session owns t's receive side from now on but does not
// close it. It starts synchronizing with every peer at the first
// AdvanceFrame or Poll.
func New[S any, I comparable](cfg Config[I], t transport.Transport, simulate func(*S, []I, rollnet.Frame)) (*Session[S, I], error) {
	p := new(Session[S, I])
	if err := p.init(cfg, t, simulate); err != nil {
		return nil, err
	}
	return p, nil
}

// init makes p a new session for cfg (New, and Rejoin in place).
func (p *Session[S, I]) init(cfg Config[I], t transport.Transport, simulate func(*S, []I, rollnet.Frame)) error {
	if t == nil {
		return fmt.Errorf("%w: nil transport", errConfig)
	}
	n, err := resolve(cfg.Net)
	if err != nil {
		return err
	}
	players := cfg.Session.Players
	if players < 1 || players > session.MaxPlayers {
		return fmt.Errorf("%w: Players %d not in [1, %d]", errConfig, players, session.MaxPlayers)
	}
	if len(cfg.Remote) != players {
		return fmt.Errorf("%w: Remote has %d entries for %d players", errConfig, len(cfg.Remote), players)
	}
	ic, err := newInputCodec[I]()
	if err != nil {
		return err
	}
	if ic.Size > wire.MaxInputSize {
		return fmt.Errorf("%w: input of %d bytes (at most %d)", errConfig, ic.Size, wire.MaxInputSize)
	}
	*p = Session[S, I]{
		ep:       link.NewEndpoint(t, n, protocolVersion),
		codec:    ic,
		user:     cfg.Session.Predict,
		players:  players,
		size:     ic.Size,
		delay:    cfg.Session.InputDelay,
		owner:    make([]int, players),
		all:      ^uint64(0) >> (64 - players),
		recv:     make([]rollnet.Frame, players),
		fed:      make([]rollnet.Frame, players),
		disc:     make([]bool, players),
		frozenAt: make([]rollnet.Frame, players),
		frozen:   make([]I, players),
		added:    make([]rollnet.Frame, players),
		checks:   link.NewChecks(n.CheckInterval),
		absence:  cfg.Absence,
		awaitAt:  make([]rollnet.Frame, players),
		awaitT:   make([]int64, players),
	}
	if !cfg.Absence.Valid() {
		return fmt.Errorf("%w: Absence %v", errConfig, cfg.Absence)
	}
	for pl, peer := range cfg.Remote {
		if peer == "" {
			p.owner[pl] = -1
			p.local |= 1 << pl
			continue
		}
		i, ok := p.ep.Lookup(peer)
		if !ok {
			if err := p.ep.AddLink(link.New(peer)); err != nil {
				return netError(err)
			}
			i = len(p.ep.Links()) - 1
		}
		p.owner[pl] = i
		p.ep.Links()[i].Mask |= 1 << pl
	}
	if p.local == 0 {
		return fmt.Errorf("%w: no local player (a spectator is a Spectator)", errConfig)
	}
	p.stride = bits.OnesCount64(p.local) * ic.Size
	p.nPlayers = len(p.ep.Links())
	p.status = make([][]wire.PeerStatus, p.nPlayers)
	for i := range p.status {
		p.status[i] = make([]wire.PeerStatus, players)
	}
	p.multi = p.nPlayers >= 2
	if len(cfg.Spectators) > MaxSpectators {
		return fmt.Errorf("%w: %d spectators (at most %d)", errConfig, len(cfg.Spectators), MaxSpectators)
	}
	if cfg.SpectatorArchive < 0 || cfg.SpectatorArchive > maxArchive {
		return fmt.Errorf("%w: SpectatorArchive %d not in [0, %d]", errConfig, cfg.SpectatorArchive, maxArchive)
	}
	for _, peer := range cfg.Spectators {
		l := link.New(peer)
		l.Optional = true
		if err := p.ep.AddLink(l); err != nil {
			return netError(err)
		}
	}
	for _, l := range p.ep.Links() {
		if l.Optional {
			l.Offer = settingsHash(&n, players, ic.Size, p.delay, roleHost, roleSpectator)
			l.Expect = settingsHash(&n, players, ic.Size, p.delay, roleSpectator, roleHost)
		} else {
			l.Offer = settingsHash(&n, players, ic.Size, p.delay, p.local, l.Mask)
			l.Expect = settingsHash(&n, players, ic.Size, p.delay, l.Mask, p.local)
			if cfg.Open != 0 {
				l.Offer = link.SettingsHash(l.Offer, cfg.Open)
				l.Expect = link.SettingsHash(l.Expect, cfg.Open)
			}
			if cfg.Absence != rollnet.AbsencePredict { // (a Predict match hashes as before)
				l.Offer = link.SettingsHash(l.Offer, absenceTag|uint64(cfg.Absence))
				l.Expect = link.SettingsHash(l.Expect, absenceTag|uint64(cfg.Absence))
			}
			if cfg.NoRepair || cfg.Arbiter != 0 { // (the defaults hash as nothing)
				tag := uint64(repairTag) | uint64(cfg.Arbiter)<<1
				if cfg.NoRepair {
					tag |= 1
				}
				l.Offer = link.SettingsHash(l.Offer, tag)
				l.Expect = link.SettingsHash(l.Expect, tag)
			}
			if cfg.MaxInputDelay != 0 || cfg.MinInputDelay != 0 { // (a fixed delay hashes as before)
				tag := delayTag | uint64(uint16(cfg.MinInputDelay))<<16 | uint64(uint16(cfg.MaxInputDelay))
				l.Offer = link.SettingsHash(l.Offer, tag)
				l.Expect = link.SettingsHash(l.Expect, tag)
			}
		}
	}
	coreCfg := cfg.Session
	coreCfg.Predict = p.predict
	if !p.multi && cfg.Session.Predict == nil {
		coreCfg.Predict = nil
	}
	core, err := session.New[S, I](coreCfg, simulate)
	if err != nil {
		return err
	}
	p.core = core
	lim, _ := window.Resolve(cfg.Session.Capacity, p.delay, cfg.Session.MaxPrediction, cfg.Session.Lockstep) // session.New accepted them
	p.capacity, p.maxPred = lim.Capacity, lim.MaxPrediction
	if err := p.initFollower(cfg); err != nil {
		return err
	}
	// How far a peer may honestly claim to run ahead or behind: the
	// prediction window, the input delay both ways, and a second of
	// flight. A quality report claiming more is forged.
	p.ep.SetMaxAdvantage(int32(p.maxPred + 2*max(p.delay, cfg.MaxInputDelay) + n.FrameRate))
	histFrames := 256
	for histFrames < 4*(p.capacity+p.delay+p.maxPred) {
		histFrames *= 2
	}
	p.hist = newHistory(histFrames, players, ic.Size)
	for pl := range players {
		p.recv[pl] = rollnet.Frame(p.delay) - 1
		p.fed[pl] = rollnet.Frame(p.delay) - 1
		p.frozenAt[pl] = rollnet.NoFrame
		p.added[pl] = rollnet.NoFrame
		p.awaitAt[pl] = rollnet.NoFrame
	}
	p.newest = rollnet.Frame(p.delay) - 1
	for _, l := range p.ep.Links() {
		p.initLink(l)
	}
	p.archive = newArchive(cfg.SpectatorArchive, players, ic.Size, rollnet.Frame(p.delay)-1) // the first frames' inputs are zero
	maxStride := 0
	for _, l := range p.ep.Links() {
		maxStride = max(maxStride, bits.OnesCount64(l.Mask)*ic.Size)
	}
	p.inBuf = make([]byte, wire.MaxFrames*maxStride)
	p.inStat = make([]wire.PeerStatus, wire.MaxPlayers)
	p.block = make([]byte, wire.MaxFrames*players*ic.Size)
	p.outStat = make([]wire.PeerStatus, players)
	p.rj.restart.cfg, p.rj.restart.sim, p.rj.restart.initial = cfg, simulate, new(S)
	if err := p.initRejoin(cfg); err != nil {
		return err
	}
	if err := p.initRepair(cfg); err != nil {
		return err
	}
	p.ep.ExpectPeers()
	return nil
}

// newInputCodec checks the input type I as the core session does.
func newInputCodec[I comparable]() (inputbytes.Codec[I], error) {
	c, err := inputbytes.New[I]()
	if err != nil {
		return c, fmt.Errorf("%w: input type: %w", errConfig, err)
	}
	return c, nil
}

// acceptHi is the newest frame the core accepts a remote input for:
// Frame()+InputDelay+MaxPrediction.
func (p *Session[S, I]) acceptHi() rollnet.Frame {
	return p.core.Frame() + rollnet.Frame(p.delay+p.maxPred)
}

// initLink sets l's frame counters and connection statuses to the
// session's start.
func (p *Session[S, I]) initLink(l *link.Link) {
	l.Acked = rollnet.Frame(p.delay) - 1
	l.Sent = rollnet.Frame(p.delay) - 1
	if l.Index() >= p.nPlayers {
		p.feeds[l.Index()-p.nPlayers], p.acks[l.Index()-p.nPlayers] = feed{}, specAcks{} // a spectator
		p.rp.forget(l.Index())
		return
	}
	for pl := range p.status[l.Index()] {
		p.status[l.Index()][pl] = wire.PeerStatus{Connected: true, LastFrame: int32(p.delay) - 1}
	}
}

// AddSpectator adds a spectator of this session: peer runs a Spectator
// whose SpectatorConfig.Host is this session, and the handshake with it
// starts at the next AdvanceFrame or Poll. Like every spectator it starts
// from the initial state and replays the match from its first frame,
// catching up several frames per tick (see SpectatorConfig.CatchUp), so it
// needs every confirmed input since the start: AddSpectator returns
// ErrSpectatorLate when they are no longer held (the match outgrew
// Config.SpectatorArchive, or with no archive, the input history), and
// a spectator that cannot catch up before the frames it needs are dropped
// is disconnected (EventDisconnected). A spectator that disconnected or
// failed its handshake may be added again (it replays from the start). It
// returns ErrSpectatorLimit beyond MaxSpectators, an errConfig error for a
// peer that is this session, one of its players' peers or a spectator
// already live, errClosed after Close. It allocates; call it between
// ticks, not from within a game loop's hot path.
func (p *Session[S, I]) AddSpectator(peer transport.Peer) error {
	if p.ep.Closed() {
		return errClosed
	}
	i, known := p.ep.Lookup(peer)
	if known {
		old := p.ep.Links()[i]
		if i < p.nPlayers {
			return fmt.Errorf("%w: peer %q is a player's peer", errConfig, string(peer))
		}
		if old.State() != link.Disconnected && old.State() != link.Failed {
			return fmt.Errorf("%w: spectator %q already added", errConfig, string(peer))
		}
	} else if len(p.ep.Links())-p.nPlayers >= MaxSpectators {
		return fmt.Errorf("%w: %d spectators already", ErrSpectatorLimit, MaxSpectators)
	}
	if !p.replayable() {
		return fmt.Errorf("%w: frame %d confirmed, first %d frames kept (SpectatorArchive)", ErrSpectatorLate,
			p.core.ConfirmedFrame(), p.archive.frames())
	}
	l := link.New(peer)
	l.Optional = true
	l.Offer = settingsHash(p.ep.Settings(), p.players, p.size, p.delay, roleHost, roleSpectator)
	l.Expect = settingsHash(p.ep.Settings(), p.players, p.size, p.delay, roleSpectator, roleHost)
	if known {
		p.ep.ReplaceLink(i, l)
		p.initLink(l)
		return nil
	}
	if err := p.ep.AddLink(l); err != nil {
		return netError(err)
	}
	p.initLink(l)
	p.ep.ExpectPeers()
	return nil
}

// replayable reports whether every confirmed frame's inputs are still
// held, in the archive or the history: what a new spectator needs.
func (p *Session[S, I]) replayable() bool {
	c := min(p.core.ConfirmedFrame(), p.core.Frame()-1)
	f := max(p.archive.newest+1, rollnet.Frame(p.delay))
	if f > c {
		return true
	}
	for pl := range p.players {
		if _, ok := p.hist.get(f, pl); !ok {
			return false
		}
	}
	return true
}

// archiveConfirmed copies newly confirmed frames' inputs from the history
// into the spectator archive, while it has room.
func (p *Session[S, I]) archiveConfirmed() {
	p.archive.fill(min(p.core.ConfirmedFrame(), p.core.Frame()-1), p.players, p.hist.get)
}

// confirmedInput returns player's confirmed input of frame f, from the
// history or the archive.
func (p *Session[S, I]) confirmedInput(f rollnet.Frame, player int) ([]byte, bool) {
	if b, ok := p.hist.get(f, player); ok {
		return b, true
	}
	return p.archive.input(f, player)
}

// predict is the core session's Predict in sessions of more than two
// peers: an input heard but not yet agreed on by every peer is the best
// prediction there is.
func (p *Session[S, I]) predict(player int, last I, frame rollnet.Frame) I {
	if p.owner[player] >= 0 && p.recv[player] > p.fed[player] {
		g := min(frame, p.recv[player])
		if g > p.fed[player] {
			var in I
			if b, ok := p.hist.get(g, player); ok {
				copyInput(rollback.BytesOf(&in), b)
				if g == frame {
					return in
				}
				last = in
			}
		}
	}
	if p.user != nil {
		return p.user(player, last, frame)
	}
	return last
}

// AddLocalInput gives local player's input for frame Frame()+InputDelay.
// Called again before that frame is simulated (after a refused
// AdvanceFrame), the newest value replaces the old.
func (p *Session[S, I]) AddLocalInput(player int, in I) error {
	if p.ep.Closed() {
		return errClosed
	}
	if uint(player) >= uint(p.players) {
		return session.ErrPlayer
	}
	if p.owner[player] >= 0 {
		return fmt.Errorf("%w: player %d", ErrNotLocal, player)
	}
	if p.rejoining() {
		return nil // not back yet: the input counts for nothing
	}
	if p.dl.on {
		p.addLocal(player, in)
		return nil
	}
	f := p.core.Frame() + rollnet.Frame(p.delay)
	if err := p.core.AddLocalInput(player, in); err != nil {
		return err
	}
	p.hist.put(f, player, rollback.BytesOf(&in))
	p.added[player] = f
	return nil
}

// AdvanceFrame polls the network, feeds what arrived to the core session,
// and simulates one frame (after at most one rollback), then sends every
// peer the local inputs it has not acknowledged. It returns
// ErrNotSynchronized during the handshake, session.ErrPredictionLimit when the
// frame would be predicted too far past the confirmed one (the network is
// still polled and served: call again next tick), ErrNoLocalInput when a
// local player has no input for the frame, a *SyncError after a failed
// handshake (settings differ, or no handshake within NetConfig.SyncTimeout),
// errClosed after Close.
func (p *Session[S, I]) AdvanceFrame() error {
	if p.ep.Closed() {
		return errClosed
	}
	p.pump()
	if p.ep.Err() != nil {
		return p.ep.Err()
	}
	if p.rejoining() {
		return p.catchUp()
	}
	if !p.running {
		return ErrNotSynchronized
	}
	f := p.core.Frame() + rollnet.Frame(p.delay)
	if p.dl.on {
		newest, ok := p.localReady()
		if !ok {
			p.flush()
			return fmt.Errorf("%w: frame %d", ErrNoLocalInput, p.core.Frame())
		}
		f = newest
	}
	for mask := p.local; mask != 0 && !p.dl.on; mask &= mask - 1 {
		if pl := bits.TrailingZeros64(mask); p.added[pl] != f {
			p.flush()
			return fmt.Errorf("%w: player %d, frame %d", ErrNoLocalInput, pl, f)
		}
	}
	p.feed()
	if p.awaiting != 0 && p.core.Frame() >= p.stopAt() {
		p.flush()
		return p.awaitError() // every peer stops here while the player is away
	}
	if p.core.Frame() == 0 {
		*p.rj.restart.initial = *p.core.State()
	}
	if p.dl.on {
		if err := p.commitLocal(); err != nil {
			p.flush()
			return err
		}
	}
	if err := p.core.AdvanceFrame(); err != nil {
		p.flush()
		return err
	}
	if p.wait > 0 {
		p.wait-- // ran instead of waiting: the advice is spent
	}
	p.newest = f
	for mask := p.local; mask != 0; mask &= mask - 1 {
		pl := bits.TrailingZeros64(mask)
		p.recv[pl] = f
		p.fed[pl] = f
	}
	p.checksums()
	if p.repairs() {
		p.repairTick() // out of line: a desync reported, or a repair under way
	}
	p.rec.confirmed(p.core, p.checks.Interval)
	if len(p.archive.rows) > 0 {
		p.archiveConfirmed()
	}
	p.timeSync()
	if p.dl.on {
		p.follow()
	}
	p.flush()
	return nil
}

// Poll runs the network for a tick in which the game does not advance (a
// recommended wait, a pause, the handshake): it receives, answers, resends
// and runs the timers. Each Poll spends one frame of a wait recommendation.
func (p *Session[S, I]) Poll() error {
	if p.ep.Closed() {
		return errClosed
	}
	p.pump()
	if p.running && !p.rejoining() {
		p.feed()
	}
	if p.wait > 0 {
		p.wait--
	}
	p.flush()
	return p.ep.Err()
}

// pump reads the clock and the network and runs the timers.
func (p *Session[S, I]) pump() {
	p.ep.Clock()
	if p.rj.phase == phaseAsking {
		p.askPump()
		return
	}
	for {
		l, typ, b, ok := p.ep.Receive()
		if !ok {
			break
		}
		if l == nil {
			p.stranger(b) // a rejoin request from a new address
			continue
		}
		p.handle(l, typ, b)
	}
	for _, l := range p.ep.Links() {
		if p.ep.TickDue(l) { // the call skipped on most frames
			p.ep.Tick(l)
		}
	}
	take, open := !p.rejoining(), false
	for i, l := range p.ep.Links()[:p.nPlayers] {
		switch l.State() {
		case link.Running:
			l.Optional = false // (rejoinTick's, inline: the path of every frame)
		case link.Disconnected:
			p.rejoinTick(l)
			p.lost(l)
		default:
			p.rejoinTick(l)
		}
		if pr := &p.rj.peers[i]; take && !open && (pr.pending || pr.open || l.State() != link.Running || l.Interrupted()) {
			open = p.takeable(pr, l) // not idle: look closer
		}
	}
	if p.rj.phase == phaseCatching {
		p.askAgain()
	}
	p.gate.set(&p.ep, open)
	if !p.running && p.ep.Err() == nil {
		all := true
		for i, l := range p.ep.Links()[:p.nPlayers] {
			all = all && (l.State() == link.Running || p.rj.absent(i))
		}
		if all {
			p.running = true
			p.ep.Started()
			p.ep.Push(rollnet.Event{Kind: rollnet.EventRunning})
		}
	}
	if p.unagreed {
		p.agree()
	}
	if p.awaiting != 0 {
		p.awaitTick()
	}
}

// handle processes one packet from l.
func (p *Session[S, I]) handle(l *link.Link, typ wire.Type, b []byte) {
	if typ == wire.TypeInput && l.State() == link.Running && l.Index() < p.nPlayers && p.rj.phase == phaseNone {
		p.handleInput(l, b) // every frame's packet, by the path below's end
		return
	}
	switch typ {
	case wire.TypeRejoin:
		if wire.IsRepair(b) {
			p.handleRepair(l, b)
			return
		}
		p.handleRejoin(l, b)
		return
	case wire.TypeSyncRequest, wire.TypeSyncReply:
		if p.ep.HandleSync(l, typ, b) {
			p.ep.Synced(l)
		}
		return
	}
	if l.State() != link.Running {
		return // nothing but the handshake before it completes
	}
	if p.ep.HandleCommon(l, typ, b) {
		return
	}
	switch typ {
	case wire.TypeInput:
		if l.Index() >= p.nPlayers {
			l.Malformed()
			return
		}
		if p.rj.phase != phaseNone && p.catchInput(l, b) {
			return
		}
		p.handleInput(l, b)
	case wire.TypeInputAck:
		if l.Index() < p.nPlayers {
			p.catchAck(l, b)
			return
		}
		m, _, err := wire.ParseInputAck(b)
		if err != nil {
			l.Malformed()
			return
		}
		if rollnet.Frame(m.Ack) > l.Sent || rollnet.Frame(m.Ack) < rollnet.Frame(p.delay)-1 {
			l.Malformed() // an ack of frames never sent
			return
		}
		if !p.ep.Accept(l, m.Seq) {
			return
		}
		// The newest ack to arrive stands, even below the one before: a
		// forged ack lasts until the peer's next packet (an older one
		// arriving late only makes us send a few frames again). But one
		// below what it acknowledged before by more than ackMargin asks
		// for frames it held: a restart, at most specRestarts a minute,
		// unless it only undoes the last move forward (a forged ack
		// healing); beyond that it is ignored (counted malformed).
		if !p.specAck(l, rollnet.Frame(m.Ack)) {
			l.Malformed()
			return
		}
		if f := &p.feeds[l.Index()-p.nPlayers]; f.on {
			f.acked(l.Acked, p.ep.Time())
		}
		if m.HasChecksum {
			takeChecksum(&p.ep, l, &p.checks, m.Seq, m.Ack, m.CheckFrame, m.Checksum)
		}
	case wire.TypeChecksum:
		p.ep.RemoteChecksum(l, &p.checks, b)
	default:
		l.Malformed()
	}
}

// handleInput processes an Input message from player link l.
func (p *Session[S, I]) handleInput(l *link.Link, b []byte) {
	m := wire.Input{Size: p.size}
	if _, err := wire.ParseInput(b, &m, p.inBuf, p.inStat); err != nil || m.Players != l.Mask || !p.dl.delayValid(&m) ||
		rollnet.Frame(m.Ack) > p.newest || rollnet.Frame(m.Ack) < rollnet.Frame(p.delay)-1 || (p.multi && len(m.Status) != p.players) {
		l.Malformed()
		return
	}
	if !p.ep.Accept(l, m.Seq) {
		return
	}
	if p.rj.phase == phaseCatching {
		p.rj.live |= 1 << l.Index()
	}
	if p.rj.peers[l.Index()].pending {
		p.rejoinHeard(l) // a player taken back is back
	}
	l.Acked = rollnet.Frame(m.Ack) // the newest ack to arrive stands: a forged one heals at the next
	if p.dl.on {
		p.takeDelay(l, &m)
	}
	if m.HasChecksum {
		takeChecksum(&p.ep, l, &p.checks, m.Seq, m.Ack, m.CheckFrame, m.Checksum)
	}

	// Inputs: take the frames that extend what was heard, up to the core's
	// window.
	first := bits.TrailingZeros64(l.Mask)
	hi := p.acceptHi()
	stride := bits.OnesCount64(l.Mask) * p.size
	k := 0 // from the first frame not heard yet: resent ones are skipped
	if d := int64(p.recv[first]) + 1 - int64(m.Start); d > 0 {
		k = int(min(d, int64(m.Frames)))
	}
	for ; k < m.Frames; k++ {
		f := rollnet.Frame(m.Start) + rollnet.Frame(k)
		if f > p.recv[first]+1 || f > hi {
			break
		}
		row := m.Inputs[k*stride : (k+1)*stride]
		if p.codec.Refuses() && !p.valid(row) {
			l.Malformed()
			break
		}
		j := 0
		for mask := l.Mask; mask != 0; mask &= mask - 1 {
			pl := bits.TrailingZeros64(mask)
			p.hist.put(f, pl, row[j:j+p.size])
			p.recv[pl] = f
			j += p.size
		}
	}
	if !p.multi {
		return
	}
	// Connection status: merge monotonically; adopt disconnections.
	for pl, s := range m.Status {
		cur := &p.status[l.Index()][pl]
		if !cur.Connected {
			continue // final
		}
		if !s.Connected {
			if p.stale(pl, s) {
				continue // sent before it saw the player come back
			}
			*cur = s
			if o := p.owner[pl]; o >= 0 && p.ep.Links()[o] != l && !p.disc[pl] {
				p.ep.Disconnect(p.ep.Links()[o])
				p.lost(p.ep.Links()[o])
			}
			continue
		}
		cur.LastFrame = max(cur.LastFrame, s.LastFrame)
	}
}

// valid reports whether every input of row decodes (no bool byte is
// neither 0 nor 1).
func (p *Session[S, I]) valid(row []byte) bool {
	var in I
	for j := 0; j < len(row); j += p.size {
		if p.codec.Decode(row[j:j+p.size], &in) != nil {
			return false
		}
	}
	return true
}

// lost marks every player of player link l disconnected: their heard
// inputs stop where they are.
func (p *Session[S, I]) lost(l *link.Link) {
	for mask := l.Mask; mask != 0; mask &= mask - 1 {
		p.disc[bits.TrailingZeros64(mask)] = true
	}
	p.unagreed = true
}

// agree fixes the last real frame of each disconnected player once every
// remaining peer has reported its own final view of it: the smallest
// frame anyone heard. Every peer computes the same minimum.
//
// It looks only while p.unagreed: lost and frozenDone, which make a player
// disconnected and not frozen, set it, and agree clears it once no player
// awaits agreement.
func (p *Session[S, I]) agree() {
	pending := false
	for pl := range p.players {
		if !p.disc[pl] || p.frozenAt[pl] != rollnet.NoFrame {
			continue
		}
		f := p.recv[pl]
		heard := f // the most any remaining peer heard (the absence policy's stop)
		known := true
		for i, l := range p.ep.Links()[:p.nPlayers] {
			if i == p.owner[pl] || l.State() != link.Running || p.rj.catching(i) {
				continue
			}
			s := p.status[l.Index()][pl]
			if s.Connected {
				known = false
				break
			}
			f = min(f, rollnet.Frame(s.LastFrame))
			heard = max(heard, rollnet.Frame(s.LastFrame))
		}
		if !known {
			pending = true
			continue
		}
		f = max(f, p.fed[pl]) // what was fed stays (only a lying peer gets here)
		p.frozenAt[pl] = f
		var in I
		if b, ok := p.hist.get(f, pl); ok && f >= rollnet.Frame(p.delay) {
			copyInput(rollback.BytesOf(&in), b)
		}
		p.frozen[pl] = in
		p.ep.Push(rollnet.Event{Kind: rollnet.EventPlayerDisconnected, Player: pl, Frame: f})
		if p.absence != rollnet.AbsencePredict {
			p.await(pl, max(heard, f))
		}
	}
	p.unagreed = pending
}

// feed gives the core every remote input it may have: heard ones (in
// sessions of more than two peers, only those every other peer has heard
// too), and frozen ones for disconnected players.
func (p *Session[S, I]) feed() {
	hi := p.acceptHi()
	stop := rollnet.Frame(math.MaxInt32) // frozen inputs stop below an awaited player's stop
	if p.awaiting != 0 {
		stop = p.stopAt()
	}
	for mask := p.all &^ p.local; mask != 0; mask &= mask - 1 {
		pl := bits.TrailingZeros64(mask)
		o := p.owner[pl]
		limit := p.recv[pl]
		if fz := p.frozenAt[pl]; fz != rollnet.NoFrame {
			limit = fz
		} else if p.multi {
			for i, l := range p.ep.Links()[:p.nPlayers] {
				if i != o && l.State() == link.Running && !p.rj.catching(i) {
					limit = min(limit, rollnet.Frame(p.status[l.Index()][pl].LastFrame))
				}
			}
		}
		for f := p.fed[pl] + 1; f <= limit && f <= hi; f++ {
			b, ok := p.hist.get(f, pl)
			if !ok {
				break
			}
			var in I
			copyInput(rollback.BytesOf(&in), b)
			if err := p.core.AddRemoteInput(pl, f, in); err != nil && !errors.Is(err, session.ErrConflict) {
				break
			}
			p.fed[pl] = f
		}
		if fz := p.frozenAt[pl]; fz != rollnet.NoFrame && p.fed[pl] >= fz {
			in := p.frozen[pl]
			for f := p.fed[pl] + 1; f <= hi && f <= p.core.Frame()+rollnet.Frame(p.delay) && f < p.rj.until[pl] && f < stop; f++ {
				if err := p.core.AddRemoteInput(pl, f, in); err != nil && !errors.Is(err, session.ErrConflict) {
					break
				}
				p.hist.put(f, pl, rollback.BytesOf(&in))
				p.fed[pl] = f
				// recv stays: it is the final frame this session reports
				// in its connection status, whatever order packets take.
			}
			p.frozenDone(pl)
		}
	}
}

// checksums computes the checksums of newly confirmed frames due one.
func (p *Session[S, I]) checksums() {
	if c := min(p.core.ConfirmedFrame(), p.core.Frame()-1); p.checks.Interval > 0 && p.checks.Next <= c {
		p.checksumsTo(c) // out of line: one frame in ChecksumInterval has one due
	}
}

// checksumsTo computes the checksums due of frames up to c.
func (p *Session[S, I]) checksumsTo(c rollnet.Frame) {
	for p.checks.Next <= c {
		f := p.checks.Next
		p.checks.Next += rollnet.Frame(p.checks.Interval)
		if sum, err := p.core.ChecksumAt(f); err == nil {
			p.ep.RecordChecksum(&p.checks, f, sum)
		}
	}
}

// timeSync samples the frame advantage over every player peer and
// recommends a wait when this session runs ahead.
func (p *Session[S, I]) timeSync() {
	best := 0.0
	ready := false
	for _, l := range p.ep.Links()[:p.nPlayers] {
		if l.State() != link.Running {
			continue
		}
		first := bits.TrailingZeros64(l.Mask)
		n := p.ep.Settings()
		oneWay := l.RTT() / 2 * int64(n.FrameRate) / 1e9
		// The peer's frame now: the frame its newest input was for, less
		// the input delay, plus the frames it ran while that input flew.
		delay := p.delay
		if p.dl.on {
			delay = p.dl.now
		}
		est := int64(p.recv[first]) - int64(delay) + 1 + oneWay
		adv := int32(int64(p.core.Frame()) - est)
		l.AddLocalAdvantage(adv, n.Window)
		if local, remote, ok := l.Advantages(n.Window / 2); ok {
			ready = true
			best = max(best, (local-remote)/2)
		}
	}
	if !ready || p.wait > 0 {
		return
	}
	if n := p.ep.Settings(); int(best+0.5) >= n.MinWait {
		p.wait = min(int(best+0.5), n.FrameRate)
		p.ep.Push(rollnet.Event{Kind: rollnet.EventWaitRecommended, Frames: p.wait})
		tick := int64(1e9) / int64(n.FrameRate)
		for _, l := range p.ep.Links()[:p.nPlayers] {
			l.ResetAdvantages()
			// Reports the peer sent before it saw this wait describe the
			// lead it waits out (issue 19 defect 2): count only those
			// after the wait, our next inputs' flight and the report's.
			l.DiscardRemoteUntil(p.ep.Time() + int64(p.wait+1)*tick + l.RTT())
		}
	}
}

// flush sends each peer what it is owed this tick.
func (p *Session[S, I]) flush() {
	quiet := p.rj.quiet()
	for i, l := range p.ep.Links() {
		if l.State() != link.Running {
			continue
		}
		if i < p.nPlayers && !(quiet && p.rj.peers[i].settled()) && p.rejoinFlush(l) {
			// the rejoin's own traffic took the place of inputs
		} else if p.running {
			if i < p.nPlayers {
				p.sendInputs(l)
			} else {
				p.sendSpectator(l)
			}
		}
		if p.ep.KeepAliveDue(l) {
			p.ep.KeepAlive(l, l.LocalAdv)
		}
	}
	if p.rp.want != rollnet.NoFrame || p.rp.serving != 0 || p.rp.watchers != 0 {
		p.repairFlush()
	}
}

// sendInputs sends player link l every local input it has not
// acknowledged, our acknowledgement of its inputs and, with more than two
// peers, our view of every player's connection.
func (p *Session[S, I]) sendInputs(l *link.Link) {
	start := l.Acked + 1
	n := int(p.newest - l.Acked)
	n = min(n, wire.MaxFrames)
	if p.rj.ats > 0 { // an R we sponsor not acknowledged by every peer yet
		n = min(n, p.rejoinLimit(l, start))
	}
	n = max(n, 0)
	stride := p.stride
	var in []byte // the inputs, when one run of the history holds them (one local player)
	if stride == p.size {
		in, _ = p.hist.run(start, bits.TrailingZeros64(p.local), n)
	}
	for k := range n {
		if in != nil {
			break
		}
		j := k * stride
		for mask := p.local; mask != 0; mask &= mask - 1 {
			b, ok := p.hist.get(start+rollnet.Frame(k), bits.TrailingZeros64(mask))
			if !ok {
				n = k // lost to the history: the peer fell too far behind
				break
			}
			j += copy(p.block[j:], b)
		}
	}
	m := wire.Input{
		Seq:     l.Seq(),
		Ack:     int32(p.recv[bits.TrailingZeros64(l.Mask)]),
		Start:   int32(start),
		Frames:  n,
		Players: p.local,
		Size:    p.size,
		Inputs:  in, // nil: p.block
	}
	if p.multi {
		for pl := range p.players {
			p.outStat[pl] = wire.PeerStatus{Connected: !p.disc[pl], LastFrame: int32(p.recv[pl])}
		}
		m.Status = p.outStat
	}
	if p.dl.on {
		p.delayBlock(&m)
	}
	p.sendInput(l, &m, stride, false)
}

// sendInput sends m, shortened until it fits a packet, with the checksum
// l is owed, through the transport's bulk path for the bulk feed; it
// returns the bytes sent (0: not even its first frame fits, -1: the
// transport did not take it).
func (p *Session[S, I]) sendInput(l *link.Link, m *wire.Input, stride int, bulk bool) int {
	if f, sum, ok := p.ep.CarriedChecksum(l, &p.checks); ok {
		m.HasChecksum, m.CheckFrame, m.Checksum = true, int32(f), sum
	}
	b := p.encode(m, stride)
	if b == nil {
		return 0
	}
	e := m.Start + int32(m.Frames) - 1
	fresh := rollnet.NoFrame
	if m.Frames > 0 && rollnet.Frame(e) > l.Sent {
		fresh = rollnet.Frame(e)
	}
	if bulk && !p.ep.SendBulk(l, b) {
		return -1 // sent again next tick, its checksum with it
	}
	if !bulk {
		p.ep.Send(l, b)
	}
	l.Sent = max(l.Sent, rollnet.Frame(e))
	if m.HasChecksum {
		p.ep.CarriedChecksumSent(l, fresh)
	}
	return len(b)
}

// sendSpectator sends spectator link l the confirmed frames it has not
// acknowledged, every player's input: in bulk (feed.go) while it is more
// than p.liveGap() frames behind, else the live stream (sendLive). Either
// way the Input's Ack is the newest confirmed frame, which tells the
// spectator how far behind it is.
func (p *Session[S, I]) sendSpectator(l *link.Link) {
	c := min(p.core.ConfirmedFrame(), p.core.Frame()-1)
	f := &p.feeds[l.Index()-p.nPlayers]
	if c-l.Acked > p.liveGap() {
		if !f.on {
			// Its budget carries over from the last feed: a restart gets
			// no fresh burst.
			tokens, filled, primed := f.tokens, f.filled, f.filled != 0
			f.start(l.Acked, p.ep.Time())
			if primed {
				f.tokens, f.filled = tokens, filled
			}
		}
		if !p.feedBulk(l, f, c) {
			p.ep.Disconnect(l) // it fell behind what we keep: it cannot catch up
		}
		return
	}
	f.on = false
	if !p.sendLive(l, c) {
		p.ep.Disconnect(l) // it fell behind what we keep: it cannot catch up
	}
}

// Events appends every event since the last call to dst, oldest first,
// and returns it. With a dst of enough capacity it allocates nothing. The
// session holds at most 256 undrained events, dropping the oldest beyond
// that: drain every tick.
func (p *Session[S, I]) Events(dst []rollnet.Event) []rollnet.Event { return p.ep.Events(dst) }

// PeerStats returns the network statistics of peer (a player peer or a
// spectator), or ErrNotAPeer.
func (p *Session[S, I]) PeerStats(peer transport.Peer) (rollnet.PeerStats, error) {
	st, err := peerStats(&p.ep, peer)
	if i, ok := p.ep.Lookup(peer); ok {
		st.Spectator = i >= p.nPlayers // a player taken back is optional until it runs
		st.RepairsTaken, st.RepairsServed = p.repairCounts(i)
	}
	return st, err
}

// WaitRecommendation returns how many ticks the game should skip (calling
// Poll instead of AdvanceFrame) to let its peers catch up; 0 when in step.
// Each Poll spends one.
func (p *Session[S, I]) WaitRecommendation() int { return p.wait }

// State returns the live state: read it to draw. Set the initial state
// with SetInitialState (writing through State before the first frame does
// the same).
func (p *Session[S, I]) State() *S { return p.core.State() }

// SetInitialState sets the state frame 0 starts from (the zero S unless
// set). Every player and spectator of the match must set the same one, so
// their simulations agree from the first frame. It returns ErrStarted once
// the first frame was simulated.
func (p *Session[S, I]) SetInitialState(s S) error { return setInitial(p.core, s) }

// Frame returns the frame the next AdvanceFrame simulates.
func (p *Session[S, I]) Frame() rollnet.Frame { return p.core.Frame() }

// ConfirmedFrame returns the newest frame every player's input is known
// for.
func (p *Session[S, I]) ConfirmedFrame() rollnet.Frame { return p.core.ConfirmedFrame() }

// ChecksumAt returns the checksum of the state after frame, while held
// (see Session.ChecksumAt). Peers agree at min(ConfirmedFrame(), Frame()-1).
// Ask after a successful AdvanceFrame: inputs that arrive during a refused
// AdvanceFrame or a Poll may mark frames for re-simulation, which are
// session.ErrOutOfWindow until the next frame is simulated.
func (p *Session[S, I]) ChecksumAt(frame rollnet.Frame) (uint32, error) {
	return p.core.ChecksumAt(frame)
}

// StateAt returns the state after frame, while held (see Session.StateAt).
func (p *Session[S, I]) StateAt(frame rollnet.Frame) (*S, error) { return p.core.StateAt(frame) }

// Stats returns the core session's counters (rollbacks, mispredictions...).
func (p *Session[S, I]) Stats() session.Stats { return p.core.Stats() }

// Running reports whether every player peer is synchronized.
func (p *Session[S, I]) Running() bool { return p.running }

// Close tells every peer this session is leaving and stops it. It does not
// close the transport, which the caller owns. Calling it again does
// nothing.
func (p *Session[S, I]) Close() error {
	p.ep.Close()
	return nil
}

// Bounds on a spectator's acknowledgement moving back.
const (
	// ackMargin is how far below the one before a spectator's ack may
	// move (a late datagram) and still stand: frames the feed sends again.
	ackMargin = 2 * feedLive
	// specRestarts is how many times a minute a spectator's ack may move
	// back further (it started over) and restart its feed.
	specRestarts = 3
)

// specAcks is what a spectator link's acknowledgements did: the ack
// before its last move forward, and its restarts of the last minute.
type specAcks struct {
	prev     rollnet.Frame
	restarts [specRestarts]int64 // when, oldest first; 0 none
}

// specAck takes spectator link l's acknowledgement a (at most l.Sent); it
// reports false when a moves back too far, too often, and is ignored.
func (p *Session[S, I]) specAck(l *link.Link, a rollnet.Frame) bool {
	s := &p.acks[l.Index()-p.nPlayers]
	switch {
	case a > l.Acked:
		s.prev = l.Acked
	case a >= l.Acked-ackMargin || a >= s.prev-ackMargin:
		// A late datagram, or a forged ack healing.
	default:
		t := p.ep.Time()
		if s.restarts[0] != 0 && t-s.restarts[0] < 60e9 { // a minute
			return false
		}
		copy(s.restarts[:], s.restarts[1:])
		s.restarts[specRestarts-1] = t
		s.prev = a
	}
	l.Acked = a
	return true
}
