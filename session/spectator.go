package session

import (
	"fmt"

	"github.com/rollnet/rollnet/codec"
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
	endpoint
	core    *Session[S, I]
	codec   inputCodec[I]
	host    *link
	players int
	size    int
	delay   int
	catchUp int
	hist    history
	recv    Frame // newest frame whose inputs arrived, contiguously
	ackSent Frame
	ackDue  bool
	running bool
	checks  checks
	inBuf   []byte
	inStat  []codec.PeerStatus
}

// NewSpectator returns a spectator of the session its host plays, over t,
// with the players' simulate.
func NewSpectator[S any, I comparable](cfg SpectatorConfig, t transport.Transport, simulate func(*S, []I, Frame)) (*Spectator[S, I], error) {
	if t == nil {
		return nil, fmt.Errorf("%w: nil transport", ErrConfig)
	}
	n, err := cfg.Net.resolve()
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
		endpoint: newEndpoint(t, n),
		core:     core,
		codec:    core.codec,
		players:  cfg.Players,
		size:     core.InputSize(),
		delay:    cfg.InputDelay,
		catchUp:  cfg.CatchUp,
		recv:     Frame(cfg.InputDelay) - 1,
		ackSent:  Frame(cfg.InputDelay) - 1,
		checks:   newChecks(n.checkInterval),
	}
	if s.catchUp == 0 {
		s.catchUp = 4
	}
	l := newLink(cfg.Host, cfg.Players)
	l.host = true
	l.offer = settingsHash(&n, cfg.Players, s.size, s.delay, roleSpectator, roleHost)
	l.expect = settingsHash(&n, cfg.Players, s.size, s.delay, roleHost, roleSpectator)
	if err := s.addLink(l); err != nil {
		return nil, err
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
	if s.closed {
		return ErrClosed
	}
	s.pump()
	defer s.flush()
	switch {
	case s.failErr != nil:
		return s.failErr
	case s.host.state == linkDisconnected:
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
	if s.checks.interval > 0 {
		for s.checks.next <= s.core.Frame()-1 {
			f := s.checks.next
			s.checks.next += Frame(s.checks.interval)
			if sum, err := s.core.ChecksumAt(f); err == nil {
				s.localChecksum(&s.checks, f, sum)
			}
		}
	}
	return nil
}

// Poll runs the network for a tick without simulating.
func (s *Spectator[S, I]) Poll() error {
	if s.closed {
		return ErrClosed
	}
	s.pump()
	s.flush()
	return s.failErr
}

func (s *Spectator[S, I]) pump() {
	s.clock()
	for {
		l, typ, b, ok := s.receive()
		if !ok {
			break
		}
		s.handle(l, typ, b)
	}
	s.tick(s.host)
	if !s.running && s.host.state == linkRunning {
		s.running = true
		s.events.push(Event{Kind: EventRunning})
	}
}

func (s *Spectator[S, I]) handle(l *link, typ codec.Type, b []byte) {
	switch typ {
	case codec.TypeSyncRequest, codec.TypeSyncReply:
		if s.handleSync(l, typ, b) {
			l.lastRecv = s.t
		}
		return
	}
	if l.state != linkRunning || s.handleCommon(l, typ, b) {
		return
	}
	switch typ {
	case codec.TypeInput:
		s.handleInput(l, b)
	case codec.TypeChecksum:
		s.remoteChecksum(l, &s.checks, b)
	default:
		l.malformed++
	}
}

func (s *Spectator[S, I]) handleInput(l *link, b []byte) {
	all := ^uint64(0) >> (64 - s.players)
	m := codec.Input{Size: s.size}
	if _, err := codec.ParseInput(b, &m, s.inBuf, s.inStat); err != nil || m.Players != all {
		l.malformed++
		return
	}
	s.heard(l)
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
				l.malformed++
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
	if l.state != linkRunning {
		return
	}
	if s.ackDue || s.recv != s.ackSent {
		s.ackDue = false
		s.ackSent = s.recv
		m := codec.InputAck{Seq: l.seq, Ack: int32(s.recv)}
		s.out = m.Append(s.out[:0])
		s.send(l)
	}
	if l.checkAgain > 0 && s.checks.newest.frame != NoFrame {
		l.checkAgain--
		s.sendChecksum(l, s.checks.newest)
	}
	s.keepAlive(l, 0)
}

// Events appends every event since the last call to dst and returns it.
func (s *Spectator[S, I]) Events(dst []Event) []Event { return s.events.drain(dst) }

// PeerStats returns the network statistics of the host.
func (s *Spectator[S, I]) PeerStats() PeerStats { return s.host.stats() }

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
	s.close()
	return nil
}
