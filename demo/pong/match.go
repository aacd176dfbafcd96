package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/authority/cmd/hostcmd"
	"github.com/rollnet/rollnet/demo/pong/game"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/playout"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport/impair"
)

// Constants of the network modes.
const (
	// checksumInterval is how many frames apart P2P peers compare
	// confirmed states: six times a second at 60 fps.
	checksumInterval = 6
	// capacity bounds -delay: the session's rollback window is 32 frames.
	capacity = 32
	// linger bounds how long a side that spent its frame budget keeps the
	// network going so the other side can finish and compare its last
	// frames.
	linger = 3 * time.Second
	// dropAfter is how long the opponent may be silent before it is
	// declared disconnected: a peer that quits says so and goes at once.
	dropAfter = 5 * time.Second
	// syncTimeout bounds the handshake: what two players who both impair
	// their links as much as -impair allows need.
	syncTimeout = 30 * time.Second
	// rejoinWindow is how long after a -rejoin player vanished it may
	// come back.
	rejoinWindow = 60 * time.Second
	// printEvery is how many frames apart a headless side prints a
	// checksum line (tests compare the processes' lines).
	printEvery = 60
	// lastStates is how many ticks an authoritative client plays out
	// after the host's state of its budget's last frame arrived.
	lastStates = 30
	// ownSpeed bounds how fast an authoritative client draws its own
	// paddle, in its top speeds: the timestep's dilation (at most 10%) and
	// a third to catch a correction up over a few frames, not jump it.
	ownSpeed = 1.4
)

// Modes (-mode).
const (
	modeP2P       = "p2p"
	modeAuthority = "authority"
)

// authPlayers is the authority mode's slots: the left paddle, the right
// one and a spectator's (a client whose input moves nothing).
const authPlayers = game.AuthoritySlots

func init() {
	// The dedicated pong host (pong host) runs the same simulation with
	// both players as clients; a late input rolls it back, as the listen
	// host.
	hostcmd.Register("pong", hostcmd.Sim[State, Input]{
		Players: authPlayers, Simulate: simulate, LateInput: authority.LateRollback,
		Settings: func(room string) uint64 { return uint64(seedFor(room)) },
		Init:     func(seed uint64) State { return NewState(uint32(seed)) },
	})
}

// crcOf is the CRC32-C of a state's bytes, the host's checksum.
func crcOf(s *State) uint32 { return rollback.Checksum(rollback.BytesOf(s)) }

// netConfig is the netplay configuration of every network side: P2P
// (players, spectators) or the authority mode.
func netConfig(o options) netplay.Config {
	cfg := netplay.Config{
		Signal: o.signal, Room: o.room, Name: o.name, Players: 2, FrameRate: o.fps, Settings: uint64(o.seed),
		InputDelay: netplay.DelayBounds{Min: o.delay, Max: o.delay}, Timeout: o.timeout, Relay: o.relay,
		Archive: 10 * 60 * o.fps, // ten minutes for late spectators and rejoiners
		Net: rollnet.NetConfig{ChecksumInterval: checksumInterval, DisconnectTimeout: dropAfter,
			SyncTimeout: syncTimeout, RejoinWindow: -1},
	}
	if o.frames > 0 {
		cfg.Archive = o.frames + capacity // the whole match
	}
	if o.rejoin != "" {
		cfg.Tokens = netplay.FileStore{Path: o.rejoin}
		cfg.Net.RejoinWindow = rejoinWindow
	}
	if o.mode == modeAuthority {
		cfg.Players, cfg.Grace, cfg.LateInput = authPlayers, o.grace, authority.LateRollback
	}
	if o.impair != (impairment{}) {
		ic := o.impair.config(seedFor(o.name + o.room))
		cfg.Impair = &ic
	}
	return cfg
}

// netMatch is this process's side of a network match in any role of
// netplay's (a P2P player or spectator, an authoritative host or
// client): its screen and report are netplay's Status, Stats and News.
type netMatch struct {
	nm    *netplay.Match[State, Input]
	o     options
	now   func() time.Time
	out   io.Writer // progress lines (headless), nil: none
	st    netplay.Status
	err   error
	told  int       // News lines printed
	note  string    // the newest of them, for the screen
	start time.Time // the first frame advanced
	end   time.Time // when the match stopped advancing (bytes/s)
	dbg   *debugging
	rb    rate
	line  []byte // a checksum line being written
	next  rollnet.Frame

	refused   string // -rejoin: the one line saying why the other player refused
	ffFrames  int32  // a spectator's frames fast-forwarded, once live
	ffLive    time.Duration
	catching  bool
	created   time.Time
	budgetEnd rollnet.Frame // a host's frame when the budget was spent

	// A host keeps real time: a fixed step on the wall clock.
	ts   *playout.Timestep
	last time.Time
	// An authoritative client draws the playout's world with its own
	// paddle predicted (compose).
	draw       State
	played     rollnet.Frame // the newest host frame the playout applied, NoFrame before
	from       rollnet.Frame // the first: -frames counts the client's own frames from it
	done       int           // ticks since the host's state of the budget's last frame
	lastOwn    float64
	drawnOwn   bool
	heldFrames int
}

func newNetMatch(nm *netplay.Match[State, Input], o options, now func() time.Time) (*netMatch, error) {
	m := &netMatch{nm: nm, o: o, now: now, draw: NewState(o.seed), played: rollnet.NoFrame, from: rollnet.NoFrame,
		line: make([]byte, 0, 64), next: printEvery, created: now()}
	if _, back := nm.Token(); back {
		m.next = math.MaxInt32 // from its return on
	}
	ts, err := playout.NewTimestep(playout.TimestepConfig{Step: time.Second / time.Duration(o.fps)})
	m.ts = ts
	nm.OnSession(func() error {
		*nm.State() = NewState(o.seed)
		if p := nm.P2P(); p != nil {
			var err error
			m.dbg, err = debugTo(p, o, nm.Seat())
			return err
		}
		return nil
	})
	return m, err
}

func (m *netMatch) mode() netplay.Mode { return m.nm.Mode() }

func (m *netMatch) Side() int {
	switch s := m.nm.Seat(); {
	case m.mode() == netplay.ModeHost:
		return 0
	case s > 1:
		return -1 // the authority mode's third slot: a spectator's
	default:
		return s
	}
}

func (m *netMatch) State() *State {
	if m.mode() == netplay.ModeClient {
		return &m.draw
	}
	if s := m.nm.State(); s != nil {
		return s
	}
	return &m.draw
}

// Tick runs one tick: netplay's AdvanceFrame, or a host's frames for the
// time since the last tick (its clients keep their lead on real time).
func (m *netMatch) Tick(in Input) error {
	if m.err != nil {
		return m.err
	}
	if m.mode() != netplay.ModeHost {
		m.inject()
		m.advance(in)
		return m.err
	}
	now := m.now()
	dt := m.ts.Step()
	if !m.last.IsZero() {
		dt = now.Sub(m.last)
	}
	m.last = now
	n := m.ts.Advance(dt)
	if m.o.frames > 0 {
		n = min(n, m.o.frames-int(m.nm.Frame()))
	}
	for range n {
		if m.advance(in); m.err != nil {
			break
		}
	}
	return m.err
}

// inject is -inject-desync: from frame F, this side's state is not the
// others'. A P2P player corrupts its own state once; an authoritative
// client the copy of the host's newest state it decodes the next ones
// against, until the protocol's checksums catch it.
func (m *netMatch) inject() {
	f := int(m.nm.Frame())
	switch {
	case m.o.inject == 0 || m.nm.Frame() == 0:
	case m.nm.P2P() != nil && f == m.o.inject:
		m.nm.State().Wins[m.Side()]++
	case m.nm.AuthClient() != nil && m.st.Desync == "":
		if s, hf := m.nm.AuthClient().HostState(); s != nil && int(hf) >= m.o.inject {
			s.Wins[1]++
		}
	}
}

// advance makes one AdvanceFrame and takes in what it says.
func (m *netMatch) advance(in Input) {
	st, err := m.nm.AdvanceFrame(in)
	m.st = st
	if err != nil {
		m.err = m.failed(err)
		return
	}
	if st.Advanced && m.start.IsZero() && m.mode() != netplay.ModeHost { // a host's starts with its client
		m.start = m.now()
		m.startLine()
	}
	for _, e := range m.nm.Events() {
		if e.Kind == rollnet.EventDesyncDetected && m.nm.P2P() != nil {
			m.dbg.desync(m.nm.P2P(), e)
		}
	}
	m.tellNews()
	switch m.mode() {
	case netplay.ModeP2P:
		if m.o.rejoin != "" && m.nm.P2P() != nil {
			m.printSums()
		}
	case netplay.ModeSpectator:
		if was := m.catching; was != (st.Phase == netplay.CatchingUp) {
			m.catching = !was
			if was && m.ffFrames == 0 {
				m.ffFrames, m.ffLive = int32(st.Frame), m.now().Sub(m.created)
				m.logf("pong: caught up with the host: %d frames fast-forwarded, live %.2f s after connecting", m.ffFrames, m.ffLive.Seconds())
			}
		}
	case netplay.ModeHost:
		if f := m.nm.Frame() - 1; f%printEvery == 0 {
			crc, _ := m.nm.ChecksumAt(f)
			m.printSum(f, crc)
		}
		if m.start.IsZero() && m.slot1() {
			m.start = m.now()
			m.startLine()
		}
		if !m.start.IsZero() && !m.slot1() && st.Away == "" && !m.budgetSpent() {
			m.err = errPeerLeft // its client quit, or did not come back in time
		}
	case netplay.ModeClient:
		m.compose()
	}
	if st.Phase == netplay.Ended && m.err == nil {
		m.err = errPeerLeft
	}
}

// slot1 reports whether a client holds the right paddle's slot (a host's).
func (m *netMatch) slot1() bool {
	var cs [authPlayers]authority.HostClientStats
	for _, c := range m.nm.AuthHost().Clients(cs[:0]) {
		if c.First == 1 {
			return true
		}
	}
	return false
}

func (m *netMatch) budgetSpent() bool { return m.o.frames > 0 && int(m.nm.Frame()) >= m.o.frames }

// tellNews prints netplay's new News lines and keeps the newest for the
// screen.
func (m *netMatch) tellNews() {
	news := m.nm.News()
	for ; m.told < len(news); m.told++ {
		m.note = news[m.told]
		m.logf("pong: %s", m.note)
	}
}

// startLine says the match started, in the demo's words.
func (m *netMatch) startLine() {
	room := m.nm.Room()
	switch m.mode() {
	case netplay.ModeP2P:
		if m.o.rejoin != "" {
			if _, back := m.nm.Token(); !back {
				m.logf("pong: rejoin token saved in %s", m.o.rejoin)
			}
		}
		s := m.Side()
		m.logf("pong: match started: %s (%s) against %s (%s) in room %s", m.name(s), sideName(s), m.name(1-s), m.nm.Peer(1-s), room)
	case netplay.ModeHost:
		m.logf("pong: match started: %s (left, host) in room %s (authority mode)", m.name(0), room)
	case netplay.ModeClient:
		if s := m.Side(); s < 0 {
			m.logf("pong: match started: spectating %s in room %s (authority mode)", m.players(), room)
		} else {
			m.logf("pong: match started: %s (%s, client) in room %s (authority mode)", m.name(s), sideName(s), room)
		}
		if tok, ok := m.nm.Token(); ok && m.Side() >= 0 {
			text, _ := tok.MarshalText()
			keep := " (with -rejoin FILE a restarted client takes its paddle back)"
			if m.o.rejoin != "" {
				keep = " kept in " + m.o.rejoin + " (started again with -rejoin " + m.o.rejoin + ", this client takes its paddle back)"
			}
			m.logf("pong: rejoin token %s%s", text, keep)
			m.note = "rejoin token" + keep
		}
	}
}

// failed is a fatal error of netplay's in the demo's words.
func (m *netMatch) failed(err error) error {
	room := m.nm.Room()
	var re *session.RejoinError
	switch {
	case errors.As(err, &re):
		who := m.nm.Name(1 - m.nm.Seat())
		if who == "" {
			who = "the " + sideName(1-m.nm.Seat()) + " player"
		}
		m.refused = fmt.Sprintf("pong: rejoin refused by %s: %s (%s removed)", who, re.Reason, m.o.rejoin)
	case errors.Is(err, netplay.ErrRoomFull), errors.Is(err, netplay.ErrMatchStarted):
		return fmt.Errorf("pong: room %s is full: two players are in it; add -spectate to watch their match", room)
	case errors.Is(err, netplay.ErrAuthorityRoom):
		return fmt.Errorf("pong: room %s holds a dedicated host (pong host): join it with -mode authority", room)
	case errors.Is(err, netplay.ErrSettings) && m.o.mode == modeP2P:
		return fmt.Errorf("pong: the opponent plays with other settings (-delay, -fps, -seed or another version of the demo): %w", err)
	case errors.Is(err, netplay.ErrTimeout) && m.o.spectate && m.o.mode == modeP2P:
		return fmt.Errorf("pong: room %s: no match in it within %v; a spectator joins once both players are", room, m.o.timeout)
	case errors.Is(err, netplay.ErrTimeout) && m.o.rejoin != "" && m.mode() == netplay.ModeP2P:
		if _, back := m.nm.Token(); back {
			// Nobody of its match answers: it is over. FILE would fail
			// the same way at every start.
			_ = os.Remove(m.o.rejoin)
			return fmt.Errorf("pong: -rejoin: nobody of the match in room %s answered within %v, so it is over (%s removed; start again to play a new one)", room, m.o.timeout, m.o.rejoin)
		}
	case errors.Is(err, netplay.ErrTimeout) && m.o.mode == modeP2P:
		return fmt.Errorf("pong: no opponent within %v (room %s): %w", m.o.timeout, room, err)
	}
	var se *rollnet.SyncError
	if errors.As(err, &se) && se.Reason == rollnet.ReasonTimeout {
		return fmt.Errorf("pong: the opponent connected but never completed the handshake within %v", syncTimeout)
	}
	return fmt.Errorf("pong: %w", err)
}

// printSums prints, headless with -rejoin, the checksums of the confirmed
// frames due: the process tests compare them across a rejoin.
func (m *netMatch) printSums() {
	p := m.nm.P2P()
	if m.next == math.MaxInt32 {
		if f := p.RejoinStats().Frame; m.st.Phase == netplay.Running && f != rollnet.NoFrame && p.Frame() > f {
			m.next = (f + printEvery - 1) / printEvery * printEvery
		}
		return
	}
	for c := min(p.ConfirmedFrame(), p.Frame()-1); m.next <= c; m.next += printEvery {
		if crc, ok := m.nm.ChecksumAt(m.next); ok {
			m.printSum(m.next, crc)
		}
	}
}

// compose makes an authoritative client's drawn state: the world at the
// render time from the playout (the ball and the other paddle blended
// between the two host states around it), its own paddle from the
// predicted present, blended between its last two steps and held to the
// paddle's speed, so that a correction is caught up over a few frames,
// not jumped. It prints the checksum of each host state played.
func (m *netMatch) compose() {
	c := m.nm.AuthClient()
	if c == nil || !c.Synchronized() {
		return
	}
	if s, f, ok := c.Played(); ok && f != m.played {
		if m.played = f; m.from == rollnet.NoFrame {
			m.from = f
		}
		if f%printEvery == 0 {
			m.printSum(f, crcOf(s))
		}
	}
	if _, f := c.HostState(); m.o.frames > 0 && m.from != rollnet.NoFrame && int(f-m.from) >= m.o.frames-1 {
		m.done++
	}
	a, b, w, ok := m.nm.Playout()
	if !ok {
		m.draw = *c.State() // until the playout starts, the prediction
		return
	}
	me, them := m.Side(), 1-m.Side()
	own := lerp(a.PaddleY[0], b.PaddleY[0], w)
	if me < 0 { // a spectator: both paddles from the playout
		me, them = 0, 1
	} else {
		pred, prev := c.State(), c.Previous()
		own = float64(pred.PaddleY[me])
		if prev != nil {
			own = lerp(prev.PaddleY[me], pred.PaddleY[me], c.Alpha())
		}
		if lim := ownSpeed * PaddleV; m.drawnOwn && math.Abs(own-m.lastOwn) > lim {
			own = m.lastOwn + math.Copysign(lim, own-m.lastOwn)
			m.heldFrames++
		}
		m.lastOwn, m.drawnOwn = own, true
	}
	m.draw = *a
	if a.Wait == 0 && b.Wait == 0 && a.Score == b.Score && a.Matches == b.Matches {
		m.draw.BallX = int32(math.Round(lerp(a.BallX, b.BallX, w)))
		m.draw.BallY = int32(math.Round(lerp(a.BallY, b.BallY, w)))
	}
	m.draw.PaddleY[them] = int32(math.Round(lerp(a.PaddleY[them], b.PaddleY[them], w)))
	m.draw.PaddleY[me] = int32(math.Round(own))
}

func lerp(a, b int32, w float64) float64 { return float64(a) + float64(b-a)*w }

// frames is the frames this side played: an authoritative client counts
// its own, from the first host state it played (-frames too), every other
// side the match's frame number.
func (m *netMatch) frames() int32 {
	if m.mode() != netplay.ModeClient {
		return int32(m.nm.Frame())
	}
	if m.from == rollnet.NoFrame {
		return 0
	}
	n := int32(m.played - m.from + 1)
	if m.o.frames > 0 && (n >= int32(m.o.frames) || m.done >= lastStates) {
		// The host sends states past the budget until the client leaves,
		// and a loaded machine's playout may jump onto one of them.
		n = int32(m.o.frames)
	}
	return n
}

// finish keeps the network going after the frame budget, up to linger,
// so the others can confirm and compare their last frames, until they
// leave.
func (m *netMatch) finish(tick time.Duration) {
	m.end = m.now()
	m.budgetEnd = m.nm.Frame()
	if m.err != nil || !m.budgetSpent() {
		return
	}
	for deadline := m.now().Add(linger); m.now().Before(deadline) && m.err == nil; time.Sleep(tick) {
		switch {
		case m.nm.AuthHost() != nil:
			if m.advance(Bot(m.nm.State(), 0)); !m.slot1() {
				return
			}
		case m.nm.P2P() != nil:
			p := m.nm.P2P()
			if err := p.Poll(); err != nil {
				return
			}
			if ps, err := p.PeerStats(m.nm.Peer(1 - m.Side())); err != nil || ps.Disconnected {
				return
			}
		default:
			return
		}
	}
}

// name is the name of the player on side, "?" while unknown.
func (m *netMatch) name(side int) string {
	if n := m.nm.Name(side); n != "" {
		return n
	}
	return "?"
}

// players is who plays whom.
func (m *netMatch) players() string {
	return m.name(0) + " (left) vs " + m.name(1) + " (right)"
}

func (m *netMatch) title() string {
	switch s := m.Side(); {
	case m.nm.State() == nil:
		return m.o.name + " (you)"
	case m.mode() == netplay.ModeSpectator || s < 0:
		return "spectating " + m.players()
	case m.mode() == netplay.ModeHost:
		return fmt.Sprintf("%s (you, host) vs %s", m.name(0), m.name(1))
	default:
		return fmt.Sprintf("%s (you, %s) vs %s", m.name(s), sideName(s), m.name(1-s))
	}
}

// noteLine is the screen's note: the status while something is waited
// for (a peer silent or away, the handshake), else the newest news.
func (m *netMatch) noteLine() string {
	switch st := m.st; {
	case st.Phase == netplay.Running && st.Interrupted == "" && st.Away == "" && st.Waiting == "",
		st.Phase == netplay.Rejoining, st.Phase == netplay.CatchingUp:
		return m.note
	case st.Phase == netplay.Ended:
		return m.note
	default:
		return st.String()
	}
}

func (m *netMatch) HUD() hud {
	s := m.nm.Stats()
	f := m.frames()
	h := hud{
		Title: m.title(), Frame: f, Confirmed: f - 1,
		LoopRTT: s.RTT, NetRTT: s.NetworkRTT, Path: s.Route, Advantage: m.st.FrameAdvantage,
		RollbacksS: m.rb.sample(m.now(), int64(s.Rollbacks)), Rollbacks: int64(s.Rollbacks), Deepest: s.DeepestRollback,
		Compared: s.Compared, Agreed: s.Agreed, Desync: m.st.Desync, Note: m.noteLine(),
		Impair: m.impairNote(), ImpairRTT: 2 * m.o.impair.Latency,
	}
	switch m.mode() {
	case netplay.ModeP2P:
		if p := m.nm.P2P(); p != nil {
			h.Confirmed = int32(min(p.ConfirmedFrame(), p.Frame()-1))
		}
		if m.st.Phase == netplay.Rejoining {
			h.Rejoining = m.st.String()
		}
	case netplay.ModeSpectator:
		if sp := m.nm.Spectator(); sp != nil {
			h.Advantage = -sp.Behind()
			h.Progress = fmt.Sprintf("%d frames behind the host", sp.Behind())
			if m.catching {
				h.Progress = fmt.Sprintf("catching up with the host: %d frames to go", sp.Behind())
			}
		}
	case netplay.ModeHost:
		var cs [authPlayers]authority.HostClientStats
		for _, c := range m.nm.AuthHost().Clients(cs[:0]) {
			if c.First == 1 {
				h.Auth = fmt.Sprintf("client's inputs %.1f frames early, advised %+.1f%%, late %d, predicted %d",
					c.Depth, 100*c.Rate, c.LateInputs, c.PredictedInputs)
			}
		}
	case netplay.ModeClient:
		if c := m.nm.AuthClient(); c != nil {
			st := c.Stats()
			qs, resyncs := c.PlayoutStats()
			h.Progress = fmt.Sprintf("(predicting %d)  buffer %.1f, rate %+.1f%%", c.Frame(), st.Depth, 100*st.Rate)
			h.Auth = fmt.Sprintf("playout stalls %d, jumps %d, own paddle held %d", qs.Stalls+resyncs, qs.Jumps, m.heldFrames)
		}
	}
	return h
}

func (m *netMatch) role() string {
	switch m.mode() {
	case netplay.ModeSpectator:
		return "spectator"
	case netplay.ModeHost:
		return "left, host"
	case netplay.ModeClient:
		return sideName(m.Side()) + ", client"
	}
	return sideName(m.Side())
}

func (m *netMatch) Report() report {
	if m.nm.State() == nil || m.start.IsZero() && m.mode() == netplay.ModeClient && m.nm.AuthClient() == nil {
		r := report{Role: "player", Refused: m.refused, Err: "the match never started"}
		if m.err != nil {
			r.Err = m.err.Error()
		}
		return r
	}
	s := m.nm.Stats()
	r := report{
		Role: m.role(), Frames: m.frames(), Compared: int(s.Compared), Desyncs: int(s.Compared - s.Agreed),
		First: int32(s.FirstDesync), Desync: m.st.Desync, Forensics: m.dbg.forensics(),
		Rollbacks: int64(s.Rollbacks), Deepest: s.DeepestRollback, Resim: int64(s.Resimulated),
		LoopRTT: s.RTT, NetRTT: s.NetworkRTT, WebRTC: m.nm.WebRTC() != nil, Path: path(s, m.nm.WebRTC() != nil),
		Score: m.State().Score, Wins: m.State().Wins, Players: m.players(), Impair: m.impairNote(),
		News: m.nm.News(), Refused: m.refused,
	}
	if r.Desync != "" {
		r.Desyncs = max(r.Desyncs, 1)
	}
	if m.mode() == netplay.ModeHost {
		r.Frames = int32(max(m.budgetEnd, 0))
	}
	end := m.end
	if end.IsZero() {
		end = m.now()
	}
	if d := end.Sub(m.start).Seconds(); !m.start.IsZero() && d > 0 {
		r.OutBPS, r.InBPS = float64(s.BytesSent)/d, float64(s.BytesReceived)/d
	}
	r.Extra = m.extra()
	switch {
	case m.start.IsZero() && m.err != nil && !errors.Is(m.err, errPeerLeft):
		r.Err = m.err.Error()
	case m.start.IsZero() && m.mode() == netplay.ModeHost:
		r.Err = "no client joined"
	case m.start.IsZero():
		r.Err = "the match never started (no handshake)"
	case errors.Is(m.err, errPeerLeft):
		if m.leftEarly(r.Frames) {
			r.Left = m.note
		}
	case m.err != nil:
		r.Err = m.err.Error()
	}
	return r
}

// extra is the report's lines of the mode's own.
func (m *netMatch) extra() []string {
	var out []string
	switch m.mode() {
	case netplay.ModeSpectator:
		if m.ffFrames > 0 {
			out = append(out, fmt.Sprintf("catch-up            %d frames fast-forwarded (not drawn), live %.2f s after connecting", m.ffFrames, m.ffLive.Seconds()))
		}
	case netplay.ModeHost:
		h := m.nm.AuthHost()
		st := h.Stats()
		var cs [authPlayers]authority.HostClientStats
		for _, c := range h.Clients(cs[:0]) {
			if c.First == 1 {
				out = append(out,
					fmt.Sprintf("client's inputs     %.1f frames early at the end, advised rate %+.1f%%", c.Depth, 100*c.Rate),
					fmt.Sprintf("late inputs         %d (rolled back for %d, applied late %d, dropped %d), predicted %d, lost %d",
						c.LateInputs, c.LateRolledBack, c.LateApplied, c.LateDropped, c.PredictedInputs, c.InputsLost))
			}
		}
		out = append(out, fmt.Sprintf("clients             joined %d, rejoined %d, expired %d", st.Joined, st.Rejoined, st.Expired))
	case netplay.ModeClient:
		c := m.nm.AuthClient()
		st := c.Stats()
		qs, resyncs := c.PlayoutStats()
		out = append(out,
			fmt.Sprintf("host states         %d applied, %d dropped; %d matched the prediction, %d did not", st.StatesApplied, st.StatesDropped, st.Matches, st.Mismatches),
			fmt.Sprintf("host's advice       inputs %.1f frames early, rate %+.1f%%", st.Depth, 100*st.Rate),
			fmt.Sprintf("playout             %d played, %d coasted, stalls %d, jumps %d, underruns %d, clock resyncs %d",
				qs.Applied, qs.Coasted, qs.Stalls, qs.Jumps, qs.Underruns, resyncs),
			fmt.Sprintf("own paddle          held to its top speed on %d drawn frames (catching up a correction)", m.heldFrames))
	}
	if rtc := m.nm.WebRTC(); rtc != nil {
		if st := rtc.Stats(); st.SendsSkipped+st.ReceivesDropped+st.SendErrors > 0 {
			out = append(out, fmt.Sprintf("WebRTC dropped      %d sends (channel above its threshold), %d receives (queue full), %d send errors",
				st.SendsSkipped, st.ReceivesDropped, st.SendErrors))
		}
	}
	return out
}

// leftEarly reports whether the others leaving at frame f ended the match
// before its end: a match without a frame budget has no end but a player
// leaving, except for a process this one started, which plays until its
// parent leaves.
func (m *netMatch) leftEarly(f int32) bool {
	if m.o.frames == 0 {
		return !m.o.child
	}
	return int(f) < m.o.frames
}

// path is the report's path line: the candidate pair ICE selected and
// how long after joining the room the first channel opened.
func path(s netplay.Stats, webrtc bool) string {
	switch {
	case !webrtc:
		return ""
	case s.Route == "":
		s.Route = "unknown"
	}
	if s.Opened == 0 {
		return s.Route
	}
	return fmt.Sprintf("%s, open %v after joining", s.Route, s.Opened.Round(time.Millisecond))
}

// impairNote says what -impair does to this side's link, "" without it.
func (m *netMatch) impairNote() string {
	imp, ok := m.nm.Transport().(*impair.Transport)
	if !ok {
		return ""
	}
	st := imp.Stats()
	return fmt.Sprintf("%s (lost on purpose: %d received, %d sent)", m.o.impair.label(), st.LostIn, st.LostOut)
}

// catchingUp reports whether a spectator fast-forwards: the loop shows
// the progress, not the frames flying by.
func (m *netMatch) catchingUp() bool { return m.catching }

func (m *netMatch) Close() error { return errors.Join(m.nm.Close(), m.dbg.close()) }

// logf writes a progress line to m.out, if any.
func (m *netMatch) logf(format string, args ...any) {
	if m.out != nil {
		fmt.Fprintf(m.out, format+"\n", args...)
	}
}

// printSum writes "pong: checksum frame F X" to m.out, if any, without
// fmt's allocations: the process tests compare these lines across
// processes.
func (m *netMatch) printSum(f rollnet.Frame, crc uint32) {
	if m.out == nil {
		return
	}
	b := append(m.line[:0], "pong: checksum frame "...)
	b = strconv.AppendInt(b, int64(f), 10)
	b = append(b, ' ')
	for sh := 28; sh >= 0; sh -= 4 {
		b = append(b, "0123456789abcdef"[crc>>sh&15])
	}
	m.line = append(b, '\n')
	_, _ = m.out.Write(m.line)
}
