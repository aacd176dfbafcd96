package p2p

import (
	"fmt"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/inputbytes"
	"github.com/rollnet/rollnet/internal/link"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
)

// SpectatorConfig configures a Spectator. The zero value of every field
// except Players and Host means its documented default.
type SpectatorConfig struct {
	// Players is the number of players of the session watched.
	Players int
	// InputDelay must equal the players' (the handshake checks it).
	InputDelay int
	// Capacity is the number of committed states kept, for StateAt and
	// ChecksumAt; a power of two, 0 means 16.
	Capacity int
	// Host is the player peer that feeds this spectator (its Config
	// lists this spectator in Spectators).
	Host transport.Peer
	// CatchUp is the most frames one AdvanceFrame simulates when the
	// spectator has fallen a little behind (at most feedLive, 32 frames,
	// see CatchingUp); 0 means 4.
	CatchUp int
	// FastForward is the most frames one AdvanceFrame simulates while
	// CatchingUp (a spectator that joined late replays the match from
	// its first frame); 0 means 2048.
	FastForward int
	// Net holds the protocol's settings; FrameRate must equal the
	// players'.
	Net rollnet.NetConfig
}

// Spectator plays a P2P session along, behind the players: its host sends
// it every player's confirmed inputs, and it simulates them without ever
// predicting. When inputs pile up it catches up, several frames per
// AdvanceFrame; far behind (CatchingUp: it joined late, or was cut off for
// a while) its host feeds it in bulk and it replays up to FastForward
// frames per AdvanceFrame, which the game should not draw. It holds up to
// spectatorBuffer (8192) frames of inputs not yet simulated, allocated by
// NewSpectator: 8192 × Players × input size bytes. The players never wait
// for it. A Spectator is not safe for concurrent use.
type Spectator[S any, I comparable] struct {
	ep      link.Endpoint
	core    *session.Session[S, I]
	codec   inputbytes.Codec[I]
	host    *link.Link
	players int
	size    int
	delay   int
	catchUp int
	fast    int
	hist    history
	recv    rollnet.Frame // newest frame whose inputs arrived, contiguously
	live    rollnet.Frame // the host's newest confirmed frame, as its newest Input says
	ackSent rollnet.Frame
	ackDue  bool
	running bool
	checks  link.Checks
	rec     recording[S, I] // SetRecorder's and KeepStates' (forensics.go)
	inBuf   []byte
	inStat  []wire.PeerStatus
	rp      watchRepair[S] // desync repair (spectator_repair.go)
}

// NewSpectator returns a spectator of the session its host plays, over t,
// with the players' simulate.
func NewSpectator[S any, I comparable](cfg SpectatorConfig, t transport.Transport, simulate func(*S, []I, rollnet.Frame)) (*Spectator[S, I], error) {
	if t == nil {
		return nil, fmt.Errorf("%w: nil transport", errConfig)
	}
	n, err := resolve(cfg.Net)
	if err != nil {
		return nil, err
	}
	if cfg.CatchUp < 0 || cfg.FastForward < 0 {
		return nil, fmt.Errorf("%w: CatchUp %d or FastForward %d < 0", errConfig, cfg.CatchUp, cfg.FastForward)
	}
	core, err := session.New[S, I](session.Config[I]{Players: cfg.Players, Capacity: cfg.Capacity, InputDelay: cfg.InputDelay, Lockstep: true}, simulate)
	if err != nil {
		return nil, err
	}
	ic, err := newInputCodec[I]()
	if err != nil {
		return nil, err
	}
	if ic.Size > wire.MaxInputSize {
		return nil, fmt.Errorf("%w: input of %d bytes (at most %d)", errConfig, ic.Size, wire.MaxInputSize)
	}
	s := &Spectator[S, I]{
		ep:      link.NewEndpoint(t, n, protocolVersion),
		core:    core,
		codec:   ic,
		players: cfg.Players,
		size:    ic.Size,
		delay:   cfg.InputDelay,
		catchUp: cfg.CatchUp,
		fast:    cfg.FastForward,
		recv:    rollnet.Frame(cfg.InputDelay) - 1,
		live:    rollnet.Frame(cfg.InputDelay) - 1,
		ackSent: rollnet.Frame(cfg.InputDelay) - 1,
		checks:  link.NewChecks(n.CheckInterval),
		rp:      newWatchRepair[S](),
	}
	if s.catchUp == 0 {
		s.catchUp = 4
	}
	if s.fast == 0 {
		s.fast = 2048
	}
	l := link.New(cfg.Host)
	l.Offer = settingsHash(&n, cfg.Players, s.size, s.delay, roleSpectator, roleHost)
	l.Expect = settingsHash(&n, cfg.Players, s.size, s.delay, roleHost, roleSpectator)
	if err := s.ep.AddLink(l); err != nil {
		return nil, netError(err)
	}
	s.host = l
	s.hist = newHistory(spectatorBuffer, cfg.Players, s.size)
	s.inBuf = make([]byte, wire.MaxFrames*cfg.Players*s.size)
	s.inStat = make([]wire.PeerStatus, wire.MaxPlayers)
	s.ep.ExpectPeers()
	return s, nil
}

// spectatorBuffer is how many frames of inputs a spectator holds: twice
// the bulk feed's window, so that the frames its host may send past its
// acknowledgement always fit (its acknowledgement is at most feedWindow
// frames past its simulation; see flush).
const spectatorBuffer = 2 * feedWindow

// AdvanceFrame polls the network and simulates the next frame if its
// inputs have arrived; when several frames are waiting, it simulates up to
// CatchUp of them, and up to FastForward while CatchingUp. It allocates
// nothing. It returns ErrNotSynchronized during the handshake,
// session.ErrPredictionLimit when no frame's inputs are there yet (call again next
// tick), ErrHostGone once the host disconnected, a *SyncError after a
// failed handshake, errClosed after Close.
func (s *Spectator[S, I]) AdvanceFrame() error {
	if s.ep.Closed() {
		return errClosed
	}
	s.pump()
	defer s.flush()
	switch {
	case s.ep.Err() != nil:
		return s.ep.Err()
	case s.host.State() == link.Disconnected:
		return ErrHostGone
	case !s.running:
		return ErrNotSynchronized
	}
	if s.repairs() {
		s.repairTick() // out of line: a desync reported, or a repair under way
	}
	avail := int(s.recv - s.core.Frame() + 1)
	if avail <= 0 {
		return session.ErrPredictionLimit
	}
	n := 1
	switch {
	case s.CatchingUp():
		n = min(avail, s.fast)
	case avail > 2:
		n = min(avail-1, s.catchUp)
	}
	for range n {
		if err := s.step(); err != nil {
			return err
		}
	}
	return nil
}

// step simulates the next frame, whose inputs are held.
func (s *Spectator[S, I]) step() error {
	f := s.core.Frame()
	for g := f; g <= f+rollnet.Frame(s.delay) && g <= s.recv; g++ {
		for pl := range s.players {
			b, ok := s.hist.get(g, pl)
			if !ok {
				continue
			}
			var in I
			copy(rollback.BytesOf(&in), b)
			_ = s.core.AddRemoteInput(pl, g, in)
		}
	}
	if err := s.core.AdvanceFrame(); err != nil {
		return err
	}
	s.rec.confirmed(s.core, s.checks.Interval)
	// Each frame's checksum while it is held: a fast forward runs past
	// Capacity.
	if s.checks.Interval > 0 && s.checks.Next <= f {
		g := s.checks.Next
		s.checks.Next += rollnet.Frame(s.checks.Interval)
		if sum, err := s.core.ChecksumAt(g); err == nil {
			s.ep.RecordChecksum(&s.checks, g, sum)
		}
	}
	return nil
}

func (s *Spectator[S, I]) pump() {
	s.ep.Clock()
	for {
		l, typ, b, ok := s.ep.Receive()
		if !ok {
			break
		}
		s.handle(l, typ, b)
	}
	s.ep.Tick(s.host)
	if !s.running && s.host.State() == link.Running {
		s.running = true
		s.ep.Push(rollnet.Event{Kind: rollnet.EventRunning})
	}
}

func (s *Spectator[S, I]) handle(l *link.Link, typ wire.Type, b []byte) {
	switch typ {
	case wire.TypeSyncRequest, wire.TypeSyncReply:
		if s.ep.HandleSync(l, typ, b) {
			s.ep.Synced(l)
		}
		return
	}
	if l.State() != link.Running || s.ep.HandleCommon(l, typ, b) {
		return
	}
	switch typ {
	case wire.TypeInput:
		s.handleInput(l, b)
	case wire.TypeChecksum:
		s.ep.RemoteChecksum(l, &s.checks, b)
	case wire.TypeRejoin:
		if !wire.IsRepair(b) {
			l.Malformed()
			return
		}
		s.handleRepair(l, b)
	default:
		l.Malformed()
	}
}

func (s *Spectator[S, I]) handleInput(l *link.Link, b []byte) {
	all := ^uint64(0) >> (64 - s.players)
	m := wire.Input{Size: s.size}
	if _, err := wire.ParseInput(b, &m, s.inBuf, s.inStat); err != nil || m.Players != all {
		l.Malformed()
		return
	}
	if !s.ep.Accept(l, m.Seq) {
		return
	}
	s.ackDue = true
	s.live = rollnet.Frame(m.Ack) // the newest to arrive stands: a forged one heals at the next
	if m.HasChecksum {
		takeChecksum(&s.ep, l, &s.checks, m.Seq, m.Ack, m.CheckFrame, m.Checksum)
	}
	// The bulk feed's datagrams arrive in any order: every frame of the
	// buffer is kept, and recv advances over those held contiguously.
	// Frames past the buffer are past any acknowledgement we sent plus
	// the feed's window: an impossible claim.
	stride := s.players * s.size
	low, limit := max(s.recv+1, s.core.Frame()), s.core.Frame()+rollnet.Frame(s.hist.mask)
	if end := rollnet.Frame(m.Start) + rollnet.Frame(m.Frames) - 1; m.Frames > 0 && end > limit {
		l.Malformed()
		return
	}
	var in I
	for k := range m.Frames {
		row := m.Inputs[k*stride : (k+1)*stride]
		for j := 0; j < stride; j += s.size {
			if s.codec.Decode(row[j:j+s.size], &in) != nil {
				l.Malformed()
				return
			}
		}
	}
	for k := range m.Frames {
		if f := rollnet.Frame(m.Start) + rollnet.Frame(k); f >= low {
			row := m.Inputs[k*stride : (k+1)*stride]
			for pl := range s.players {
				s.hist.put(f, pl, row[pl*s.size:(pl+1)*s.size])
			}
		}
	}
	for s.held(s.recv + 1) {
		s.recv++
	}
}

// held reports whether every player's input of frame f is in the buffer.
func (s *Spectator[S, I]) held(f rollnet.Frame) bool {
	for pl := range s.players {
		if _, ok := s.hist.get(f, pl); !ok {
			return false
		}
	}
	return true
}

func (s *Spectator[S, I]) flush() {
	l := s.host
	if l.State() != link.Running {
		return
	}
	// Our checksums ride on the acks, on the first three after each.
	f, sum, check := s.ep.RepeatedChecksum(l, &s.checks)
	// The acknowledgement: what arrived, but never more than feedWindow
	// frames past the buffer's start, so that whatever the host may send
	// after it fits the buffer.
	ack := min(s.recv, s.core.Frame()-1+spectatorBuffer-feedWindow)
	if s.ackDue || ack != s.ackSent || check {
		s.ackDue = false
		s.ackSent = ack
		m := wire.InputAck{Seq: l.Seq(), Ack: int32(ack), HasChecksum: check, CheckFrame: int32(f), Checksum: sum}
		s.ep.Send(l, m.Append(s.ep.Buffer()))
	}
	if s.rp.want != rollnet.NoFrame {
		s.rp.askFlush(&s.ep, l)
	}
	s.ep.KeepAlive(l, 0)
}

// Events appends every event since the last call to dst and returns it.
func (s *Spectator[S, I]) Events(dst []rollnet.Event) []rollnet.Event { return s.ep.Events(dst) }

// PeerStats returns the network statistics of the host.
// RepairsTaken counts the desyncs this spectator repaired with the
// host's state.
func (s *Spectator[S, I]) PeerStats() rollnet.PeerStats {
	st := linkStats(s.host)
	st.RepairsTaken = s.rp.taken
	return st
}

// State returns the live state: read it to draw. Set the initial state
// with SetInitialState (writing through State before the first frame does
// the same).
func (s *Spectator[S, I]) State() *S { return s.core.State() }

// SetInitialState sets the state frame 0 starts from: the players' initial
// state (see Session.SetInitialState), or the spectator disagrees with them
// from the first frame. It returns ErrStarted once the first frame was
// simulated.
func (s *Spectator[S, I]) SetInitialState(st S) error { return setInitial(s.core, st) }

// setInitial writes core's state before its first frame.
func setInitial[S any, I comparable](core *session.Session[S, I], s S) error {
	if core.Frame() != 0 { // only a first AdvanceFrame that ran moves it past 0
		return ErrStarted
	}
	*core.State() = s
	return nil
}

// Frame returns the frame the next simulated step is for.
func (s *Spectator[S, I]) Frame() rollnet.Frame { return s.core.Frame() }

// Behind returns how many frames the spectator trails its host's newest
// confirmed frame (as the host's newest Input said it) or, if more, the
// newest frame whose inputs arrived: the frames it has to simulate to be
// live. 0 when live.
func (s *Spectator[S, I]) Behind() int { return int(max(s.recv, s.live) - s.core.Frame() + 1) }

// CatchingUp reports whether the spectator is more than feedLive (32)
// frames Behind: its host feeds it in bulk and AdvanceFrame replays up to
// FastForward frames a call. A game should not draw those frames (they
// fly by), but show how many are left (Behind).
func (s *Spectator[S, I]) CatchingUp() bool { return s.Behind() > feedLive }

// ChecksumAt returns the checksum of the state after frame, while held.
func (s *Spectator[S, I]) ChecksumAt(frame rollnet.Frame) (uint32, error) {
	return s.core.ChecksumAt(frame)
}

// StateAt returns the state after frame, while held.
func (s *Spectator[S, I]) StateAt(frame rollnet.Frame) (*S, error) { return s.core.StateAt(frame) }

// Close tells the host this spectator is leaving. It does not close the
// transport.
func (s *Spectator[S, I]) Close() error {
	s.ep.Close()
	return nil
}
