package session

import (
	"fmt"

	"github.com/rollnet/rollnet/codec"
	"github.com/rollnet/rollnet/internal/link"
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
	// Host is the player peer that feeds this spectator (its P2PConfig
	// lists this spectator in Spectators).
	Host transport.Peer
	// CatchUp is the most frames one AdvanceFrame simulates when the
	// spectator has fallen behind; 0 means 4.
	CatchUp int
	// Net holds the protocol's settings; FrameRate must equal the
	// players'.
	Net NetConfig
}

// Spectator plays a P2P session along, behind the players: its host sends
// it every player's confirmed inputs, and it simulates them without ever
// predicting. When inputs pile up it catches up, several frames per
// AdvanceFrame. The players never wait for it. A Spectator is not safe for
// concurrent use.
type Spectator[S any, I comparable] struct {
	ep      link.Endpoint
	core    *Session[S, I]
	codec   inputCodec[I]
	host    *link.Link
	players int
	size    int
	delay   int
	catchUp int
	hist    history
	recv    Frame // newest frame whose inputs arrived, contiguously
	ackSent Frame
	ackDue  bool
	running bool
	checks  link.Checks
	inBuf   []byte
	inStat  []codec.PeerStatus
}

// NewSpectator returns a spectator of the session its host plays, over t,
// with the players' simulate.
func NewSpectator[S any, I comparable](cfg SpectatorConfig, t transport.Transport, simulate func(*S, []I, Frame)) (*Spectator[S, I], error) {
	if t == nil {
		return nil, fmt.Errorf("%w: nil transport", ErrConfig)
	}
	n, err := resolve(cfg.Net)
	if err != nil {
		return nil, err
	}
	if cfg.CatchUp < 0 {
		return nil, fmt.Errorf("%w: CatchUp %d < 0", ErrConfig, cfg.CatchUp)
	}
	core, err := New[S, I](Config[I]{Players: cfg.Players, Capacity: cfg.Capacity, InputDelay: cfg.InputDelay, Lockstep: true}, simulate)
	if err != nil {
		return nil, err
	}
	if core.InputSize() > codec.MaxInputSize {
		return nil, fmt.Errorf("%w: input of %d bytes (at most %d)", ErrConfig, core.InputSize(), codec.MaxInputSize)
	}
	s := &Spectator[S, I]{
		ep:      link.NewEndpoint(t, n, protocolVersion),
		core:    core,
		codec:   core.codec,
		players: cfg.Players,
		size:    core.InputSize(),
		delay:   cfg.InputDelay,
		catchUp: cfg.CatchUp,
		recv:    Frame(cfg.InputDelay) - 1,
		ackSent: Frame(cfg.InputDelay) - 1,
		checks:  link.NewChecks(n.CheckInterval),
	}
	if s.catchUp == 0 {
		s.catchUp = 4
	}
	l := link.New(cfg.Host)
	l.Offer = settingsHash(&n, cfg.Players, s.size, s.delay, roleSpectator, roleHost)
	l.Expect = settingsHash(&n, cfg.Players, s.size, s.delay, roleHost, roleSpectator)
	if err := s.ep.AddLink(l); err != nil {
		return nil, netError(err)
	}
	s.host = l
	s.hist = newHistory(512, cfg.Players, s.size)
	s.inBuf = make([]byte, codec.MaxFrames*cfg.Players*s.size)
	s.inStat = make([]codec.PeerStatus, codec.MaxPlayers)
	return s, nil
}

// AdvanceFrame polls the network and simulates the next frame if its
// inputs have arrived; when several frames are waiting, it simulates up to
// CatchUp of them. It returns ErrNotSynchronized during the handshake,
// ErrPredictionLimit when no frame's inputs are there yet (call again next
// tick), ErrHostGone once the host disconnected, a *SyncError after a
// failed handshake, ErrClosed after Close.
func (s *Spectator[S, I]) AdvanceFrame() error {
	if s.ep.Closed() {
		return ErrClosed
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
	avail := int(s.recv - s.core.Frame() + 1)
	if avail <= 0 {
		return ErrPredictionLimit
	}
	n := 1
	if avail > 2 {
		n = min(avail-1, s.catchUp)
	}
	for range n {
		f := s.core.Frame()
		for g := f; g <= f+Frame(s.delay) && g <= s.recv; g++ {
			for pl := range s.players {
				b, ok := s.hist.get(g, pl)
				if !ok {
					continue
				}
				var in I
				copy(bytesOf(&in), b)
				_ = s.core.AddRemoteInput(pl, g, in)
			}
		}
		if err := s.core.Step(); err != nil {
			return err
		}
	}
	if s.checks.Interval > 0 {
		for s.checks.Next <= s.core.Frame()-1 {
			f := s.checks.Next
			s.checks.Next += Frame(s.checks.Interval)
			if sum, err := s.core.ChecksumAt(f); err == nil {
				s.ep.LocalChecksum(&s.checks, f, sum)
			}
		}
	}
	return nil
}

// Poll runs the network for a tick without simulating.
func (s *Spectator[S, I]) Poll() error {
	if s.ep.Closed() {
		return ErrClosed
	}
	s.pump()
	s.flush()
	return s.ep.Err()
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
		s.ep.Push(Event{Kind: EventRunning})
	}
}

func (s *Spectator[S, I]) handle(l *link.Link, typ codec.Type, b []byte) {
	switch typ {
	case codec.TypeSyncRequest, codec.TypeSyncReply:
		if s.ep.HandleSync(l, typ, b) {
			s.ep.Synced(l)
		}
		return
	}
	if l.State() != link.Running || s.ep.HandleCommon(l, typ, b) {
		return
	}
	switch typ {
	case codec.TypeInput:
		s.handleInput(l, b)
	case codec.TypeChecksum:
		s.ep.RemoteChecksum(l, &s.checks, b)
	default:
		l.Malformed()
	}
}

func (s *Spectator[S, I]) handleInput(l *link.Link, b []byte) {
	all := ^uint64(0) >> (64 - s.players)
	m := codec.Input{Size: s.size}
	if _, err := codec.ParseInput(b, &m, s.inBuf, s.inStat); err != nil || m.Players != all {
		l.Malformed()
		return
	}
	s.ep.Heard(l)
	s.ackDue = true
	stride := s.players * s.size
	limit := s.core.Frame() + Frame(s.hist.mask)
	var in I
	for k := range m.Frames {
		f := Frame(m.Start) + Frame(k)
		if f <= s.recv {
			continue
		}
		if f > s.recv+1 || f > limit {
			break
		}
		row := m.Inputs[k*stride : (k+1)*stride]
		for j := 0; j < stride; j += s.size {
			if s.codec.decode(row[j:j+s.size], &in) != nil {
				l.Malformed()
				return
			}
		}
		for pl := range s.players {
			s.hist.put(f, pl, row[pl*s.size:(pl+1)*s.size])
		}
		s.recv = f
	}
}

func (s *Spectator[S, I]) flush() {
	l := s.host
	if l.State() != link.Running {
		return
	}
	if s.ackDue || s.recv != s.ackSent {
		s.ackDue = false
		s.ackSent = s.recv
		m := codec.InputAck{Seq: l.Seq(), Ack: int32(s.recv)}
		s.ep.Send(l, m.Append(s.ep.Buffer()))
	}
	s.ep.RepeatChecksum(l, &s.checks)
	s.ep.KeepAlive(l, 0)
}

// Events appends every event since the last call to dst and returns it.
func (s *Spectator[S, I]) Events(dst []Event) []Event { return s.ep.Events(dst) }

// PeerStats returns the network statistics of the host.
func (s *Spectator[S, I]) PeerStats() PeerStats { return linkStats(s.host) }

// State returns the live state (read it; never write it).
func (s *Spectator[S, I]) State() *S { return s.core.State() }

// Frame returns the frame the next simulated step is for.
func (s *Spectator[S, I]) Frame() Frame { return s.core.Frame() }

// Behind returns how many frames have arrived and wait to be simulated.
func (s *Spectator[S, I]) Behind() int { return int(s.recv - s.core.Frame() + 1) }

// ChecksumAt returns the checksum of the state after frame, while held.
func (s *Spectator[S, I]) ChecksumAt(frame Frame) (uint32, error) { return s.core.ChecksumAt(frame) }

// StateAt returns the state after frame, while held.
func (s *Spectator[S, I]) StateAt(frame Frame) (*S, error) { return s.core.StateAt(frame) }

// Close tells the host this spectator is leaving. It does not close the
// transport.
func (s *Spectator[S, I]) Close() error {
	s.ep.Close()
	return nil
}
