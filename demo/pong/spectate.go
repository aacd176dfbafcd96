package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
)

// runSpectate is `pong -spectate`: a signaling server on loopback, two bot
// processes playing each other over WebRTC, and this process watching as
// the left player's spectator: it receives the confirmed inputs and plays
// the match along, a little behind, without ever predicting.
func runSpectate(ctx context.Context, o options, stdout, stderr io.Writer) int {
	out := &syncWriter{w: stdout}
	srv, err := hostRoom(&o)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFailure
	}
	defer srv.close()
	if o.headless {
		fmt.Fprintf(out, "pong: signaling on %s, room %s; starting two player processes to watch\n", srv.url, o.room)
	}
	var players [2]*opponent
	c, err := connect(ctx, o, func(ctx context.Context, c *conn) error {
		po := o
		po.watcher = string(c.rtc.Local())
		// The left player first, so this side knows which peer is its
		// host; then the right one.
		var err error
		if players[0], err = startProcess(childArgs(po, 0, 0), out, o.headless, "[left] "); err != nil {
			return err
		}
		peers, err := c.rtc.WaitPeers(ctx, 1)
		if err != nil {
			return waitError(err, o, c.room)
		}
		c.peer = peers[0]
		players[1], err = startProcess(childArgs(po, 1, 0), out, o.headless, "[right] ")
		return err
	})
	status := exitFailure
	if err != nil {
		status = connectFailed(err, out, stderr)
	} else if m, err := newSpectatorMatch(ctx, c, o); err != nil {
		c.close()
		fmt.Fprintln(stderr, err)
	} else {
		status = runLocal(ctx, m, o, out, stderr)
	}
	status = reapPlayers(players[:], o, status, out)
	return status
}

// runSpectateRoom is `pong -signal URL -room NAME -spectate`: join the
// room where two players are already playing (or about to) and watch the
// left one's match, from its first frame: the left player adds this
// process as a spectator when it connects (session's AddSpectator) and
// feeds it the match from its archive, which it replays a few frames per
// tick until it has caught up. Both players must be in the room first:
// the oldest peer there is the left player, the host.
func runSpectateRoom(ctx context.Context, o options, stdout, stderr io.Writer) int {
	c, err := connect(ctx, o, func(_ context.Context, c *conn) error {
		peers := c.sig.Peers()
		if len(peers) < 2 {
			return fmt.Errorf("pong: room %s: %s in it; a spectator joins once both players are", c.room, peersIn(len(peers)))
		}
		c.peer = transport.Peer(peers[0])
		if !o.child {
			o.say(stdout, "pong: in room %s on %s; watching %s's match", c.room, netplay.RedactURL(o.signal), short(c.peer))
		}
		return nil
	})
	if err != nil {
		return connectFailed(err, stdout, stderr)
	}
	m, err := newSpectatorMatch(ctx, c, o)
	if err != nil {
		c.close()
		fmt.Fprintln(stderr, err)
		return exitFailure
	}
	return runLocal(ctx, m, o, stdout, stderr)
}

// spectatorMatch is the spectator's side of a match.
type spectatorMatch struct {
	matchLog
	s    *session.Spectator[State, Input]
	host transport.Peer

	catching bool // far behind the host: fast-forwarding, not drawn

	created  time.Time     // when the session was made (the handshake follows)
	ffFrames int32         // frames fast-forwarded, once live after catching up
	ffLive   time.Duration // from created to live then
}

// helloWait bounds a spectator's wait for its host's hello (the names,
// and the frame to catch up to); without one it shows ids.
const helloWait = 5 * time.Second

func newSpectatorMatch(ctx context.Context, c *conn, o options) (*spectatorMatch, error) {
	o.seed = o.seedOr(c.room)
	h, ok := awaitHello(ctx, c.tr, c.peer, helloWait)
	m, err := newSpectatorOver(c.tr, c.peer, o, time.Now, nil)
	if err != nil {
		return nil, err
	}
	m.link = linkOf(c)
	if ok {
		m.names = h.Names
	}
	return m, nil
}

func newSpectatorOver(t transport.Transport, host transport.Peer, o options, now func() time.Time, nonce func() uint64) (*spectatorMatch, error) {
	net := p2pConfig(0, host, o, now, nonce).Net
	s, err := session.NewSpectator[State](session.SpectatorConfig{
		Players: 2, InputDelay: o.delay, Capacity: capacity, Host: host, Net: net,
	}, t, simulate)
	if err != nil {
		return nil, fmt.Errorf("pong: spectator: %w", err)
	}
	*s.State() = NewState(o.seed)
	return &spectatorMatch{matchLog: newMatchLog(o, now), s: s, host: host, created: now()}, nil
}

func (m *spectatorMatch) Side() int     { return -1 }
func (m *spectatorMatch) State() *State { return m.s.State() }

func (m *spectatorMatch) Tick(Input) error {
	if m.err != nil {
		return m.err
	}
	err := m.s.AdvanceFrame()
	was := m.catching
	m.catching = m.s.CatchingUp()
	if was && !m.catching && m.ffFrames == 0 {
		m.ffFrames, m.ffLive = int32(m.s.Frame()), m.now().Sub(m.created)
		m.logf("pong: caught up with the host: %d frames fast-forwarded, live %.2f s after connecting", m.ffFrames, m.ffLive.Seconds())
	}
	switch {
	case err == nil:
		m.advanced()
		m.note = ""
	case errors.Is(err, session.ErrNotSynchronized):
	case errors.Is(err, session.ErrPredictionLimit):
		if m.silentSince.IsZero() { // else the note counts the silence
			m.note = "waiting for inputs from the players"
		}
	case errors.Is(err, session.ErrHostGone):
		m.err = errPeerLeft
	default:
		m.err = err
	}
	m.events = m.s.Events(m.events[:0])
	for _, e := range m.events {
		switch e.Kind {
		case rollnet.EventDesyncDetected:
			m.desyncDetected(e, "host")
		case rollnet.EventNetworkInterrupted, rollnet.EventNetworkResumed, rollnet.EventDisconnected:
			m.opponentEvent(e, "the host (left player)", m.s.Frame())
		}
	}
	return m.err
}

func (m *spectatorMatch) HUD() hud {
	ps := m.s.PeerStats()
	h := hud{
		Title:     "spectating " + m.players(0, m.host),
		Progress:  m.progress(),
		Frame:     int32(m.s.Frame()),
		Confirmed: int32(m.s.Frame()) - 1,
		LoopRTT:   ps.RTT,
		NetRTT:    m.networkRTT(m.host),
		Path:      m.netRoute,
		Advantage: -m.s.Behind(),
		Note:      m.silence("the host"),
		Impair:    m.impairNote(),
		ImpairRTT: m.impairRTT(),
	}
	m.hudChecksums(&h, ps)
	return h
}

// progress says how far behind the host the spectator is: while it
// fast-forwards (a spectator that joined late replays the match from
// frame 0, its host feeding it in bulk), how many frames are left to the
// host's confirmed frame; then, how many frames it trails.
func (m *spectatorMatch) progress() string {
	switch b := m.s.Behind(); {
	case m.catching:
		return fmt.Sprintf("catching up with the host: %d frames to go", b)
	case b == 1:
		return "1 frame behind the host"
	default:
		return fmt.Sprintf("%d frames behind the host", b)
	}
}

// catchingUp reports whether the spectator fast-forwards: the loop shows
// the progress, not the frames flying by.
func (m *spectatorMatch) catchingUp() bool { return m.catching }

// finish records the end of the match for bytes per second.
func (m *spectatorMatch) finish(time.Duration) { m.end = m.now() }

func (m *spectatorMatch) Report() report {
	ps := m.s.PeerStats()
	r := report{
		Role:    "spectator",
		Frames:  int32(m.s.Frame()),
		LoopRTT: ps.RTT,
		NetRTT:  m.networkRTT(m.host),
		Path:    m.networkPath(),
		Score:   m.s.State().Score,
		Wins:    m.s.State().Wins,
		Players: m.players(0, m.host),
	}
	m.fillReport(&r, ps)
	if m.ffFrames > 0 {
		r.Extra = append(r.Extra, fmt.Sprintf("catch-up            %d frames fast-forwarded (not drawn), live %.2f s after connecting",
			m.ffFrames, m.ffLive.Seconds()))
	}
	switch {
	case m.start.IsZero() && m.err != nil && !errors.Is(m.err, errPeerLeft):
		r.Err = m.err.Error()
	case m.start.IsZero():
		r.Err = "the match never started (no handshake with the host)"
	case m.err != nil && !errors.Is(m.err, errPeerLeft):
		r.Err = m.err.Error()
	case m.err != nil && m.leftEarly(r.Frames):
		r.Left = m.left
	}
	return r
}

func (m *spectatorMatch) Close() error { return m.closed(m.s.Close()) }
