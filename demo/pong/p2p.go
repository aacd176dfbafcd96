package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
)

// The P2P mode, on package netplay: both players Join the room (seated by
// their transport ids, sorted: the same seats on both), the seat-0 player
// feeds spectators who Watch, and with -rejoin each keeps its rejoin token
// in FILE (netplay.FileStore): a process started again with the same
// flags while FILE is there rejoins its seat.

// checksumInterval is how many frames apart the peers compare confirmed
// states: six times a second at 60 fps.
const checksumInterval = 6

// capacity bounds -delay: the session's rollback window is 32 frames.
const capacity = 32

// linger bounds how long a side that reached its frame budget keeps the
// network going so the other side can finish and compare its last frames.
const linger = 3 * time.Second

// dropAfter is how long the opponent may be silent before it is declared
// disconnected: a peer that quits says so and is dropped at once.
const dropAfter = 5 * time.Second

// syncTimeout bounds the handshake (NetConfig.SyncTimeout): what two
// players who both impair their links as much as -impair allows need.
const syncTimeout = 30 * time.Second

// rejoinWindow is how long after the opponent vanished it may come back.
const rejoinWindow = 60 * time.Second

// archiveMinutes is how much of a match without a frame budget the
// players keep for spectators and rejoiners who join late: ten minutes at
// 60 fps is 36,000 frames of two one-byte inputs, 72 KB.
const archiveMinutes = 10

// printEvery is how many frames apart a headless side prints a checksum
// line (tests compare the processes' lines).
const printEvery = 60

// never is a frame no match reaches.
const never = rollnet.Frame(math.MaxInt32)

// spectatorArchive is Config.Archive: the whole match with a frame budget
// (-frames), else archiveMinutes.
func spectatorArchive(o options) int {
	if o.frames > 0 {
		return o.frames + capacity
	}
	return archiveMinutes * 60 * o.fps
}

// p2pConfig is the netplay configuration of a P2P player or spectator.
func p2pConfig(o options) netplay.Config {
	cfg := netplay.Config{
		Signal: o.signal, Room: o.room, Name: o.name, Players: 2, FrameRate: o.fps, Settings: uint64(o.seed),
		InputDelay: netplay.DelayBounds{Min: o.delay, Max: o.delay},
		Timeout:    o.timeout, Archive: spectatorArchive(o), Relay: o.relay,
		Net: rollnet.NetConfig{ChecksumInterval: checksumInterval, DisconnectTimeout: dropAfter,
			SyncTimeout: syncTimeout, RejoinWindow: rejoinWindow},
	}
	if o.impair != (impairment{}) {
		ic := o.impair.config(seedFor(o.name + o.room))
		cfg.Impair = &ic
	}
	if o.rejoin != "" {
		cfg.Tokens = netplay.FileStore{Path: o.rejoin}
	}
	return cfg
}

// netMatch is a P2P player's side of a match.
type netMatch struct {
	matchLog
	nm     *netplay.Match[State, Input]
	p      *session.P2P[State, Input] // nm's, once the players are seated
	st     netplay.Status
	side   int
	peer   transport.Peer   // the opponent, once seated
	former []transport.Peer // where it played from before it rejoined
	dbg    *debugging       // -record and desync forensics (record.go)

	gone    bool // the opponent left
	stalls  int  // ticks that waited for the opponent's inputs
	waits   int  // ticks skipped on a wait recommendation
	rb      rate
	lastRPS float64

	back       bool          // started with -rejoin's FILE there: coming back
	rejoinedAt rollnet.Frame // our own return's frame, once back
	refused    string        // -rejoin: why the other player would not take us back
	news       []string      // -rejoin's lines for the report
	progressAt time.Time     // the last catch-up progress line
	saved      bool          // the token's saving was said
	sumNext    rollnet.Frame // the next frame whose checksum -rejoin prints
	droppedAt  rollnet.Frame // the opponent's drop, while it may rejoin
	dropped    bool
}

// newNetMatch is a player's match on nm (netplay.Join's), not yet seated.
func newNetMatch(nm *netplay.Match[State, Input], o options, now func() time.Time) *netMatch {
	m := &netMatch{matchLog: newMatchLog(o, now), nm: nm, side: -1, sumNext: printEvery}
	_, m.back = nm.Token()
	if m.back {
		m.sumNext = never // from R on, once back
	}
	m.names[0] = o.name
	nm.OnSession(func() error {
		m.p, m.side = nm.P2P(), nm.Seat()
		*m.p.State() = NewState(o.seed)
		var err error
		m.dbg, err = debugTo(m.p, o, m.side)
		return err
	})
	return m
}

func (m *netMatch) Side() int { return m.side }
func (m *netMatch) State() *State {
	if m.p == nil {
		s := NewState(m.o.seed)
		return &s
	}
	return m.p.State()
}

// Tick runs one tick of the game loop: netplay's AdvanceFrame, which
// simulates a frame or waits (for the opponent's inputs, a recommended
// wait, a rejoin's replay).
func (m *netMatch) Tick(in Input) error {
	if m.err != nil {
		return m.err
	}
	if m.p != nil && m.o.inject > 0 && int(m.p.Frame()) == m.o.inject {
		m.p.State().Wins[m.side]++ // -inject-desync: this side only
	}
	st, err := m.nm.AdvanceFrame(in)
	m.st = st
	if err != nil {
		m.err = m.failed(err)
		return m.err
	}
	if m.p == nil {
		m.note = st.String()
		return nil
	}
	if p := m.nm.Peer(1 - m.side); p != m.peer { // a rejoiner comes back from a new address
		if m.peer != "" {
			m.former = append(m.former, m.peer)
		}
		m.peer = p
	}
	if n := m.nm.Name(1 - m.side); n != "" {
		m.names[1-m.side] = n
	}
	m.names[m.side] = m.o.name
	switch st.Phase {
	case netplay.Running:
		if st.Advanced && m.advanced() && m.rejoinedAt == 0 { // not "rejoined at frame R"
			m.note = ""
			m.logf("pong: match started: %s (%s) against %s (%s) in room %s", m.names[m.side], sideName(m.side), m.nameOf(1-m.side, m.peer), m.peer, m.room())
		}
		switch {
		case st.Waiting != "":
			m.stalls++
			if m.silentSince.IsZero() { // else the note counts the silence
				m.note = "waiting for " + st.Waiting + "'s inputs"
			}
		case !st.Advanced:
			m.waits++
		}
	case netplay.Rejoining:
		if now := m.now(); now.Sub(m.progressAt) >= time.Second {
			m.progressAt = now
			m.logf("pong: %s", m.catchUpNote())
		}
	case netplay.Ended:
		if st.Ended == netplay.EndPlayersLeft && m.dropped {
			m.left = fmt.Sprintf("the opponent vanished: declared disconnected at frame %d, and did not rejoin within %v", m.droppedAt, rejoinWindow)
			m.news = append(m.news, fmt.Sprintf("%s did not rejoin within %v", m.names[1-m.side], rejoinWindow))
			m.note = m.left
		}
		m.gone = true
	}
	m.drain(m.nm.Events())
	if m.o.rejoin != "" && !m.saved && st.Phase == netplay.Running {
		m.saved = true
		if !m.back {
			m.logf("pong: rejoin token saved in %s", m.o.rejoin)
		}
	}
	m.printSums()
	if m.err == nil && m.gone {
		m.err = errPeerLeft
	}
	return m.err
}

// failed is a fatal error of netplay's in the demo's words.
func (m *netMatch) failed(err error) error {
	var re *session.RejoinError
	switch {
	case errors.As(err, &re):
		who := m.nm.Name(1 - m.nm.Seat())
		if who == "" {
			who = "the " + sideName(1-m.nm.Seat()) + " player"
		}
		m.refused = fmt.Sprintf("pong: rejoin refused by %s: %s (%s removed)", who, re.Reason, m.o.rejoin)
	case errors.Is(err, netplay.ErrRoomFull), errors.Is(err, netplay.ErrMatchStarted):
		return fmt.Errorf("pong: room %s is full: two players are in it; add -spectate to watch their match", m.nm.Room())
	case errors.Is(err, netplay.ErrAuthorityRoom):
		return fmt.Errorf("pong: room %s holds a dedicated host (pong host): join it with -mode authority", m.nm.Room())
	case errors.Is(err, netplay.ErrSettings):
		return fmt.Errorf("pong: the opponent plays with other settings (-delay, -fps, -seed or another version of the demo): %w", err)
	case errors.Is(err, netplay.ErrTimeout) && m.back:
		// Nobody of its match answers: it is over. FILE would fail the
		// same way at every start.
		_ = os.Remove(m.o.rejoin)
		return fmt.Errorf("pong: -rejoin: nobody of the match in room %s answered within %v, so it is over (%s removed; start again to play a new one)", m.nm.Room(), m.o.timeout, m.o.rejoin)
	case errors.Is(err, netplay.ErrTimeout):
		return fmt.Errorf("pong: no opponent within %v (room %s): %w", m.o.timeout, m.nm.Room(), err)
	}
	return fmt.Errorf("pong: %w", err)
}

// drain handles the session's events of the tick.
func (m *netMatch) drain(evs []rollnet.Event) {
	for _, e := range evs {
		if m.rejoinEvent(e) {
			continue
		}
		if e.Peer != "" && e.Peer != m.peer {
			if !slices.Contains(m.former, e.Peer) {
				m.spectatorEvent(e)
			}
			continue
		}
		switch e.Kind {
		case rollnet.EventSyncFailed:
			m.err = syncFailed(e.Reason)
		case rollnet.EventNetworkInterrupted, rollnet.EventNetworkResumed:
			m.opponentEvent(e, "the opponent", m.p.Frame())
		case rollnet.EventDisconnected:
			vanished := !m.silentSince.IsZero()
			m.opponentEvent(e, "the opponent", m.p.Frame())
			if m.o.rejoin != "" && vanished {
				// It may come back within the window: the match goes on,
				// its paddle's input frozen.
				m.dropped, m.droppedAt = true, m.p.Frame()
				msg := fmt.Sprintf("%s dropped at frame %d (%s) — can rejoin for %d s", m.names[1-m.side], m.droppedAt,
					m.left, int(rejoinWindow/time.Second))
				m.news = append(m.news, msg)
				m.logf("pong: %s", msg)
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

// rejoinEvent handles the session's rejoin events; it reports whether e
// was one.
func (m *netMatch) rejoinEvent(e rollnet.Event) bool {
	switch e.Kind {
	case rollnet.EventPlayerRejoining:
		if e.Player != m.side {
			m.dropped, m.silentSince, m.left = false, time.Time{}, ""
			m.note = fmt.Sprintf("%s is rejoining at frame %d", m.names[1-m.side], e.Frame)
			m.logf("pong: %s", m.note)
		}
	case rollnet.EventPlayerRejoined:
		msg := fmt.Sprintf("%s rejoined at frame %d", m.names[e.Player], e.Frame)
		if e.Player == m.side {
			st := m.p.RejoinStats()
			m.rejoinedAt = e.Frame
			msg = fmt.Sprintf("rejoined at frame %d: replayed %d frames in %v", e.Frame, st.Replayed, st.CatchUp.Round(time.Millisecond))
			m.sumNext = (e.Frame + printEvery - 1) / printEvery * printEvery
		}
		m.dropped = false
		m.note = msg
		m.news = append(m.news, msg)
		m.logf("pong: %s", msg)
	case rollnet.EventPlayerDisconnected:
	default:
		return false
	}
	return true
}

// catchUpNote is our own return's progress, "" when not coming back.
func (m *netMatch) catchUpNote() string {
	if m.st.Phase != netplay.Rejoining {
		return ""
	}
	if m.st.Total <= m.st.Done {
		return fmt.Sprintf("rejoining: asking %s to take us back", m.nameOf(1-m.side, m.peer))
	}
	return fmt.Sprintf("rejoining: frame %d of ~%d", m.st.Done, m.st.Total)
}

// printSums prints, headless with -rejoin, the checksums of the confirmed
// frames due: the process test compares them across a rejoin.
func (m *netMatch) printSums() {
	if m.o.rejoin == "" || m.out == nil {
		return
	}
	for c := min(m.p.ConfirmedFrame(), m.p.Frame()-1); m.sumNext <= c; m.sumNext += printEvery {
		if crc, err := m.p.ChecksumAt(m.sumNext); err == nil {
			m.printSum(m.sumNext, crc)
		}
	}
}

// syncFailed is the error of a failed handshake, in the demo's words.
func syncFailed(reason string) error {
	switch reason {
	case rollnet.ReasonSettings:
		return errors.New("pong: the opponent plays with other settings (-delay, -fps or another version of the demo)")
	case rollnet.ReasonTimeout:
		return fmt.Errorf("pong: the opponent connected but never completed the handshake within %v", syncTimeout)
	}
	return fmt.Errorf("pong: handshake failed: %s", reason)
}

// spectatorEvent handles an event about a spectator of this side: news
// for the screen and the report, never the end of the match.
func (m *netMatch) spectatorEvent(e rollnet.Event) {
	who, f := short(e.Peer), m.p.Frame()
	var msg string
	switch e.Kind {
	case rollnet.EventSynchronized:
		msg = fmt.Sprintf("spectator %s joined at frame %d (replays from frame 0)", who, f)
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
	m.spectators = append(m.spectators, msg)
	m.logf("pong: %s", msg)
}

// finish keeps the network going after the last frame, up to linger, so
// the opponent can confirm and compare its last frames, until it leaves.
func (m *netMatch) finish(tick time.Duration) {
	m.end = m.now()
	if m.p == nil || m.err != nil || m.gone || m.o.frames == 0 || int(m.p.Frame()) < m.o.frames {
		return // only a side that spent its frame budget waits for the other
	}
	var evs []rollnet.Event
	for deadline := m.now().Add(linger); m.now().Before(deadline) && !m.gone; time.Sleep(tick) {
		if err := m.p.Poll(); err != nil {
			return
		}
		evs = m.p.Events(evs[:0])
		m.drain(evs)
	}
}

func (m *netMatch) stats() rollnet.PeerStats {
	ps, _ := m.p.PeerStats(m.peer)
	return ps
}

func (m *netMatch) HUD() hud {
	if m.p == nil {
		return hud{Title: m.o.name + " (you)", Note: m.note}
	}
	st := m.p.Stats()
	ps := m.stats()
	m.lastRPS = m.rb.sample(m.now(), int64(st.Rollbacks))
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
	if m.o.rejoin != "" { // the opponent may come back: for how long
		h.Note = awayNote(m.st, h.Note)
	}
	m.hudChecksums(&h, ps)
	return h
}

func (m *netMatch) Report() report {
	if m.p == nil {
		r := report{Role: "player", Refused: m.refused, Err: "the match never started"}
		if m.err != nil {
			r.Err = m.err.Error()
		}
		return r
	}
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
		Impair:    m.impairNote(),
		Forensics: m.dbg.forensics(),
		Rejoins:   m.news,
		Refused:   m.refused,
	}
	m.fillReport(&r, ps)
	if m.dropped {
		r.Rejoins = append(r.Rejoins, fmt.Sprintf("%s still away when the match ended", m.names[1-m.side]))
	}
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

func (m *netMatch) Close() error { return errors.Join(m.closed(nil), m.dbg.close()) }

func short(p transport.Peer) string {
	if len(p) > 8 {
		return string(p[:8])
	}
	return string(p)
}

// spectatorMatch is a spectator's side of a match (netplay.Watch): fed by
// the seat-0 player from the match's first frame, fast-forwarding while
// far behind.
type spectatorMatch struct {
	matchLog
	nm       *netplay.Match[State, Input]
	s        *session.Spectator[State, Input] // nm's, once it started
	st       netplay.Status
	catching bool          // far behind: fast-forwarding, not drawn
	ffFrames int32         // frames fast-forwarded, once live after catching up
	ffLive   time.Duration // from the start to live then
}

func newSpectatorMatch(nm *netplay.Match[State, Input], o options, now func() time.Time) *spectatorMatch {
	m := &spectatorMatch{matchLog: newMatchLog(o, now), nm: nm}
	nm.OnSession(func() error {
		*nm.Spectator().State() = NewState(o.seed)
		return nil
	})
	return m
}

func (m *spectatorMatch) Side() int { return -1 }
func (m *spectatorMatch) State() *State {
	if s := m.nm.State(); s != nil {
		return s
	}
	s := NewState(m.o.seed)
	return &s
}

func (m *spectatorMatch) Tick(Input) error {
	if m.err != nil {
		return m.err
	}
	st, err := m.nm.AdvanceFrame(0)
	m.st, m.s = st, m.nm.Spectator()
	if err != nil {
		if errors.Is(err, netplay.ErrTimeout) {
			err = fmt.Errorf("pong: room %s: no match in it within %v; a spectator joins once both players are", m.nm.Room(), m.o.timeout)
		}
		m.err = err
		return err
	}
	for i := range m.names {
		if n := m.nm.Name(i); n != "" {
			m.names[i] = n // the seat-0 player's roster
		}
	}
	was := m.catching
	m.catching = st.Phase == netplay.CatchingUp
	if was && !m.catching && m.ffFrames == 0 {
		m.ffFrames, m.ffLive = int32(st.Frame), m.now().Sub(m.epochOf())
		m.logf("pong: caught up with the host: %d frames fast-forwarded, live %.2f s after connecting", m.ffFrames, m.ffLive.Seconds())
	}
	switch {
	case st.Phase == netplay.Ended:
		m.err = errPeerLeft
	case st.Advanced:
		m.advanced()
		m.note = ""
	case st.Phase == netplay.Running && m.silentSince.IsZero():
		m.note = "waiting for inputs from the players"
	}
	for _, e := range m.nm.Events() {
		switch e.Kind {
		case rollnet.EventDesyncDetected:
			m.desyncDetected(e, "host")
		case rollnet.EventNetworkInterrupted, rollnet.EventNetworkResumed, rollnet.EventDisconnected:
			if e.Peer == m.nm.Peer(0) {
				m.opponentEvent(e, "the host (left player)", st.Frame)
			}
		}
	}
	return m.err
}

// epochOf is when the spectator started: its match log's creation.
func (m *spectatorMatch) epochOf() time.Time { return m.created }

func (m *spectatorMatch) HUD() hud {
	s := m.nm.Spectator()
	if s == nil {
		return hud{Title: "spectating", Note: m.st.String()}
	}
	ps := s.PeerStats()
	h := hud{
		Title:     "spectating " + m.players(0, m.nm.Peer(0)),
		Progress:  m.progress(s.Behind()),
		Frame:     int32(s.Frame()),
		Confirmed: int32(s.Frame()) - 1,
		LoopRTT:   ps.RTT,
		NetRTT:    m.networkRTT(m.nm.Peer(0)),
		Path:      m.netRoute,
		Advantage: -s.Behind(),
		Note:      awayNote(m.st, m.silence("the host")),
		Impair:    m.impairNote(),
		ImpairRTT: m.impairRTT(),
	}
	m.hudChecksums(&h, ps)
	return h
}

// progress says how far behind the host the spectator is.
func (m *spectatorMatch) progress(b int) string {
	switch {
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
	s := m.nm.Spectator()
	if s == nil {
		r := report{Role: "spectator", Err: "the match never started (no handshake with the host)"}
		if m.err != nil {
			r.Err = m.err.Error()
		}
		return r
	}
	ps := s.PeerStats()
	r := report{
		Role:    "spectator",
		Frames:  int32(s.Frame()),
		LoopRTT: ps.RTT,
		NetRTT:  m.networkRTT(m.nm.Peer(0)),
		Path:    m.networkPath(),
		Score:   s.State().Score,
		Wins:    s.State().Wins,
		Players: m.players(0, m.nm.Peer(0)),
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
		if r.Left == "" {
			r.Left = "the host (left player) left"
		}
	}
	return r
}

func (m *spectatorMatch) Close() error { return m.closed(nil) }
