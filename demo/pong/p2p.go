package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/webrtc"
)

// checksumInterval is how many frames apart the peers compare confirmed
// states: six times a second at 60 fps.
const checksumInterval = 6

// capacity is the rollback window: 31 frames minus the input delay, about
// half a second of prediction at 60 fps.
const capacity = 32

// linger bounds how long a side that reached its frame budget keeps the
// network going so the other side can finish and compare its last frames.
const linger = 3 * time.Second

// dropAfter is how long the opponent may be silent before it is declared
// disconnected (NetConfig.DisconnectTimeout): a peer that quits says so
// and is dropped at once, one that vanishes is dropped after this.
const dropAfter = 5 * time.Second

// syncTimeout bounds the handshake (NetConfig.SyncTimeout). The peer's
// data channel is open by then, so only a peer that died can make it
// fail; the time is what two players who both impair their links as much
// as -impair allows need (maxImpair), with room to spare.
const syncTimeout = 30 * time.Second

// archiveMinutes is how much of a match without a frame budget the left
// player keeps for spectators who join it late: a spectator replays the
// match from its first frame, so one that joins later than this is
// refused (session.ErrSpectatorLate). Ten minutes at 60 fps is 36,000
// frames of two one-byte inputs: 72 KB, allocated when the match starts.
const archiveMinutes = 10

// spectatorArchive is P2PConfig.SpectatorArchive for the left player: the
// whole match with a frame budget (-frames), else archiveMinutes.
func spectatorArchive(o options) int {
	if o.frames > 0 {
		return o.frames + capacity
	}
	return archiveMinutes * 60 * o.fps
}

// p2pConfig is the session configuration of a player on side (0 or 1)
// against peer.
func p2pConfig(side int, peer transport.Peer, o options, now func() time.Time, nonce func() uint64) session.P2PConfig[Input] {
	remote := []transport.Peer{"", ""}
	remote[1-side] = peer
	var watchers []transport.Peer
	archive := 0
	if side == 0 { // the left side feeds the spectators
		if o.watcher != "" {
			watchers = append(watchers, transport.Peer(o.watcher))
		}
		archive = spectatorArchive(o)
	}
	var back session.RejoinToken
	if o.rejoin != "" {
		// Either side may sponsor the other's return: it replays the
		// match from the archive.
		archive = spectatorArchive(o)
		if o.back != nil {
			back = o.back.token()
		}
	}
	return session.P2PConfig[Input]{
		Session:    session.Config[Input]{Players: 2, InputDelay: o.delay, Capacity: capacity},
		Remote:     remote,
		Spectators: watchers,
		// Spectators who join later replay the match from the start.
		SpectatorArchive: archive,
		Rejoin:           back,
		Net: rollnet.NetConfig{
			FrameRate:         o.fps,
			ChecksumInterval:  checksumInterval,
			DisconnectTimeout: dropAfter,
			SyncTimeout:       syncTimeout,
			RejoinWindow:      rejoinWindow,
			Settings:          uint64(o.seed),
			Now:               now,
			Rand:              nonce,
		},
	}
}

// netMatch is one side of a match over a network: a P2P session.
type netMatch struct {
	matchLog
	p    *session.P2P[State, Input]
	tr   transport.Transport // the session's, for the demo's hellos to spectators
	peer transport.Peer
	side int
	buf  []byte // a hello being sent

	// newPeers appends the peers that connected since its last call (the
	// left player over WebRTC: spectators joining the room; nil
	// otherwise).
	newPeers func(dst []transport.Peer) []transport.Peer
	joined   []transport.Peer
	peerEvs  []webrtc.PeerEvent

	gone    bool // the peer left
	stalls  int  // ticks refused by the prediction limit
	waits   int  // ticks skipped on a wait recommendation
	rb      rate
	lastRPS float64

	dbg *debugging // -record and desync forensics (record.go)

	rj        rejoining     // -rejoin (rejoin.go)
	sumNext   rollnet.Frame // the next frame whose checksum -rejoin prints
	syncSince time.Time     // the first tick of the handshake (mute)
}

// greetWithin bounds the exchange of names before a match; a peer that
// does not answer in time is shown by its id.
const greetWithin = 3 * time.Second

// newNetMatch starts the session over an open connection, once the
// players have said their names (see hello).
func newNetMatch(ctx context.Context, c *conn, o options) (*netMatch, error) {
	side := o.side
	if o.back != nil {
		side = o.back.Side
	}
	if side < 0 {
		side = 1
		if c.first {
			side = 0
		}
	}
	o.seed = o.seedOr(c.room)
	m, err := newP2PMatch(c.tr, c.peer, side, o, time.Now, nil)
	if err != nil {
		return nil, err
	}
	m.link = linkOf(c)
	if o.back != nil {
		// Coming back: the names are in FILE, and the opponent's session
		// is running (it would drop a hello).
		m.names, m.names[side] = o.back.Names, o.name
	} else if h, ok := greet(ctx, c.tr, c.peer, hello{Names: m.names}, greetWithin); ok && h.Names[1-side] != "" {
		m.names[1-side] = h.Names[1-side]
	}
	if side == 0 && o.watcher != "" {
		m.helloSpectator(transport.Peer(o.watcher))
	}
	if side == 0 {
		m.newPeers = func(dst []transport.Peer) []transport.Peer {
			m.peerEvs = c.rtc.Events(m.peerEvs[:0])
			for _, e := range m.peerEvs {
				switch {
				case e.Kind == webrtc.PeerConnected && e.Peer != m.peer && string(e.Peer) != o.watcher:
					dst = append(dst, e.Peer)
				case e.Kind == webrtc.PeerGone:
					m.rj.unhold(e.Peer) // gone before it proved to be anyone
				}
			}
			return dst
		}
	}
	return m, nil
}

// newP2PMatch starts a session on side against peer over t, reading the
// clock now; nonce is the handshake's nonce source (nil: crypto/rand).
func newP2PMatch(t transport.Transport, peer transport.Peer, side int, o options, now func() time.Time, nonce func() uint64) (*netMatch, error) {
	p, err := session.NewP2P[State](p2pConfig(side, peer, o, now, nonce), t, simulate)
	if err != nil {
		return nil, fmt.Errorf("pong: session: %w", err)
	}
	*p.State() = NewState(o.seed)
	dbg, err := debugTo(p, o, side)
	if err != nil {
		return nil, err
	}
	m := &netMatch{matchLog: newMatchLog(o, now), p: p, tr: t, peer: peer, side: side, buf: make([]byte, 0, helloMax), dbg: dbg,
		rj: rejoining{path: o.rejoin, back: o.back}, sumNext: printEvery}
	m.names[side] = o.name
	if o.back != nil {
		m.sumNext = never // from R on, once back
		m.note = m.catchUpNote()
	}
	return m, nil
}

// helloSpectator tells a spectator the players' names and the frame the
// match is at (a few times: a datagram may be lost), for its screen.
func (m *netMatch) helloSpectator(peer transport.Peer) {
	m.buf = hello{Frame: int32(m.p.Frame()), Names: m.names}.Append(m.buf[:0])
	for range 3 {
		_ = m.tr.Send(peer, m.buf)
	}
}

func (m *netMatch) Side() int     { return m.side }
func (m *netMatch) State() *State { return m.p.State() }

// Tick runs one tick of the game loop: a frame, or a network poll when
// the session recommends waiting for the peer.
func (m *netMatch) Tick(in Input) error {
	if m.err != nil {
		return m.err
	}
	if m.o.inject > 0 && int(m.p.Frame()) == m.o.inject {
		m.p.State().Wins[m.side]++ // -inject-desync: this side only
	}
	var err error
	if m.p.Running() && m.p.WaitRecommendation() > 0 {
		m.waits++
		err = m.p.Poll()
	} else if err = m.p.AddLocalInput(m.side, in); err == nil {
		err = m.p.AdvanceFrame()
	}
	switch {
	case err == nil:
		if m.advanced() {
			if m.rj.rejoinedAt == 0 {
				m.note = "" // not "rejoined at frame R"
			}
			m.logf("pong: match started: %s (%s) against %s (%s) in room %s", m.names[m.side], sideName(m.side), m.nameOf(1-m.side, m.peer), m.peer, m.room())
		}
		m.printSums()
		m.saveRejoin()
	case errors.Is(err, session.ErrRejoinRefused):
		m.refused(err)
	case errors.Is(err, session.ErrNotSynchronized):
		m.rejoinProgress()
		m.mute()
	case errors.Is(err, session.ErrPredictionLimit):
		m.stalls++
		if m.silentSince.IsZero() { // else the note counts the silence
			m.note = "waiting for the opponent's inputs"
		}
	default:
		m.err = err
	}
	m.drain()
	m.expireRejoin()
	if m.newPeers != nil {
		m.joined = m.newPeers(m.joined[:0])
		if m.rj.on() {
			// It may be the opponent coming back: held until known.
			for _, p := range m.joined {
				m.rj.hold(p, m.now())
			}
			m.joined = m.joined[:0]
		}
		for _, p := range m.released(m.joined) {
			m.addSpectator(p)
		}
	}
	if m.err == nil && m.gone {
		m.err = errPeerLeft
	}
	return m.err
}

// drain handles the session's events.
func (m *netMatch) drain() {
	m.events = m.p.Events(m.events[:0])
	for _, e := range m.events {
		if m.rejoinEvent(e) {
			continue
		}
		if e.Peer != "" && e.Peer != m.peer {
			m.spectatorEvent(e)
			continue
		}
		switch e.Kind {
		case rollnet.EventRunning:
			m.note = ""
		case rollnet.EventSyncFailed:
			m.err = syncFailed(e.Reason)
		case rollnet.EventNetworkInterrupted, rollnet.EventNetworkResumed:
			m.opponentEvent(e, "the opponent", m.p.Frame())
		case rollnet.EventDisconnected:
			m.opponentEvent(e, "the opponent", m.p.Frame())
			if m.opponentDropped(m.p.Frame()) {
				m.left, m.silentSince = "", time.Time{}
				continue
			}
			m.gone = true
		case rollnet.EventDesyncDetected:
			m.desyncDetected(e, "remote")
			m.dbg.desync(m.p, e)
		}
	}
}

// muteAfter is how long an opponent whose data channel is open may answer
// nothing at all before the screen says what it may be.
const muteAfter = 5 * time.Second

// muteHint is what an opponent that never answers is likely to be.
const muteHint = "the opponent answers nothing: if the room holds a dedicated host (pong host), quit and join it with -mode authority"

// mute notes, during the handshake, an opponent that has sent nothing for
// muteAfter: a dedicated host answers no P2P handshake.
func (m *netMatch) mute() {
	if m.syncSince.IsZero() {
		m.syncSince = m.now()
	}
	if ps, err := m.p.PeerStats(m.peer); err == nil && ps.PacketsReceived == 0 && m.now().Sub(m.syncSince) > muteAfter {
		m.note = muteHint
	}
}

// syncFailed is the error of a failed handshake with the opponent, in the
// demo's words.
func syncFailed(reason string) error {
	switch reason {
	case rollnet.ReasonSettings:
		return errors.New("pong: the opponent plays with other settings (-delay, -fps or another version of the demo), or already plays someone else in this room (add -spectate to watch)")
	case rollnet.ReasonTimeout:
		return fmt.Errorf("pong: the opponent connected but never completed the handshake within %v (a dedicated host answers none: join it with -mode authority)", syncTimeout)
	}
	return fmt.Errorf("pong: handshake failed: %s", reason)
}

// spectatorEvent handles an event about one of this side's spectators: it
// is news for the screen, never the end of the match (a spectator that
// disagrees with this side reports its desync itself).
func (m *netMatch) spectatorEvent(e rollnet.Event) {
	who, f := short(e.Peer), m.p.Frame()
	var msg string
	switch e.Kind {
	case rollnet.EventSynchronized:
		msg = fmt.Sprintf("spectator %s synchronized at frame %d", who, f)
	case rollnet.EventSyncFailed:
		msg = fmt.Sprintf("spectator %s failed its handshake at frame %d: %s", who, f, e.Reason)
	case rollnet.EventDisconnected:
		msg = fmt.Sprintf("spectator %s left at frame %d", who, f)
	case rollnet.EventDesyncDetected:
		msg = fmt.Sprintf("spectator %s disagrees at frame %d", who, e.Frame)
	default:
		return
	}
	m.note = msg
	if e.Kind != rollnet.EventSynchronized {
		m.spectators = append(m.spectators, msg) // the report says when each left
	}
	m.logf("pong: %s", msg)
}

// addSpectator makes peer, which connected during the match, a spectator:
// it replays the match from the start out of the session's archive. The
// screen and the report say so, or why it was refused.
func (m *netMatch) addSpectator(peer transport.Peer) {
	f := m.p.Frame()
	m.helloSpectator(peer)
	msg := fmt.Sprintf("spectator %s joined at frame %d (replays from frame 0)", short(peer), f)
	if err := m.p.AddSpectator(peer); err != nil {
		msg = fmt.Sprintf("spectator %s refused at frame %d: %v", short(peer), f, err)
	}
	m.note = msg
	m.spectators = append(m.spectators, msg)
	m.logf("pong: %s", msg)
}

// finish keeps the network going after the last frame, up to linger, so
// the peer can confirm and compare its last frames, until the peer leaves.
func (m *netMatch) finish(tick time.Duration) {
	m.end = m.now()
	if m.err != nil || m.gone || m.o.frames == 0 || int(m.p.Frame()) < m.o.frames {
		return // only a side that spent its frame budget waits for the other
	}
	deadline := m.now().Add(linger)
	for m.now().Before(deadline) && !m.gone {
		if err := m.p.Poll(); err != nil {
			return
		}
		m.drain()
		time.Sleep(tick)
	}
}

func (m *netMatch) stats() rollnet.PeerStats {
	ps, _ := m.p.PeerStats(m.peer)
	return ps
}

func (m *netMatch) HUD() hud {
	st := m.p.Stats()
	ps := m.stats()
	now := m.now()
	m.lastRPS = m.rb.sample(now, int64(st.Rollbacks))
	h := hud{
		Title:      fmt.Sprintf("%s (you, %s) vs %s", m.names[m.side], sideName(m.side), m.nameOf(1-m.side, m.peer)),
		Frame:      int32(m.p.Frame()),
		Confirmed:  int32(min(m.p.ConfirmedFrame(), m.p.Frame()-1)),
		LoopRTT:    ps.RTT,
		NetRTT:     m.networkRTT(m.peer),
		Path:       m.netRoute,
		Advantage:  ps.LocalFrameAdvantage,
		RollbacksS: m.lastRPS,
		Rollbacks:  int64(st.Rollbacks),
		Deepest:    st.MaxRollbackDepth,
		Note:       m.silence("the opponent"),
		Impair:     m.impairNote(),
		ImpairRTT:  m.impairRTT(),
		Rejoining:  m.catchUpNote(),
	}
	if w := m.rejoinWait(); w != "" {
		h.Note = w
	}
	m.hudChecksums(&h, ps)
	return h
}

func short(p transport.Peer) string {
	if len(p) > 8 {
		return string(p[:8])
	}
	return string(p)
}

func (m *netMatch) Report() report {
	st := m.p.Stats()
	ps := m.stats()
	r := report{
		Role:      sideName(m.side),
		Frames:    int32(m.p.Frame()),
		Rollbacks: int64(st.Rollbacks),
		Deepest:   st.MaxRollbackDepth,
		Resim:     int64(st.ResimulatedFrames),
		LoopRTT:   ps.RTT,
		NetRTT:    m.networkRTT(m.peer),
		Path:      m.networkPath(),
		Score:     m.p.State().Score,
		Wins:      m.p.State().Wins,
		Watchers:  m.spectators,
		Players:   m.players(m.side, m.peer),
	}
	m.fillReport(&r, ps)
	r.Impair = m.impairNote()
	r.Forensics = m.dbg.forensics()
	m.rejoinReport(&r)
	switch {
	case m.start.IsZero() && m.err != nil:
		r.Err = m.err.Error()
	case m.start.IsZero():
		r.Err = "the match never started (no handshake with the opponent)"
	case errors.Is(m.err, errPeerLeft):
		if m.leftEarly(r.Frames) {
			r.Left = m.left
		}
	case m.err != nil:
		r.Err = m.err.Error()
	}
	return r
}

func (m *netMatch) Close() error { return errors.Join(m.closed(m.p.Close()), m.dbg.close()) }
