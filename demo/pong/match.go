package main

import (
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/authority/dedicated"
	game "github.com/rollnet/rollnet/internal/ponggame"
	"github.com/rollnet/rollnet/internal/transportfigures"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/p2p"
	"github.com/rollnet/rollnet/playout"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/transport/impair"
	"github.com/rollnet/rollnet/transport/quic"
	"github.com/rollnet/rollnet/transport/udp"
)

// The network modes' numbers.
const (
	checksumInterval = 6                // frames between the P2P peers' checksum comparisons
	capacity         = 32               // the session's rollback window: -delay's bound
	linger           = 3 * time.Second  // a side done with its budget waits this long for the others to finish
	hostLinger       = 10 * time.Second // a host's: its clients count their budgets from their first state, later
	dropAfter        = 5 * time.Second  // silence before a peer is declared gone (one that quits says so)
	syncTimeout      = 30 * time.Second // the handshake of two links impaired as much as -impair allows
	rejoinWindow     = 60 * time.Second // how long a -rejoin player may come back
	printEvery       = 60               // frames between a headless side's checksum lines (tests compare them)
	lastStates       = 30               // ticks a client plays out after its budget's last host state arrived
	ownSpeed         = 1.4              // a client's own paddle's drawn top speed: 10% dilation, a third to catch up
)

// -mode's values; the authority mode's slots (left, right, a spectator's).
const (
	modeP2P, modeAuthority = "p2p", "authority"
	authPlayers            = game.AuthoritySlots
)

// hostGames are what the dedicated host (pong host) runs: the same
// simulation, both players clients.
var hostGames = []dedicated.Game{dedicated.Sim[State, Input]{
	Name: "pong", Players: authPlayers, PlayingSlots: 2, Simulate: simulate, LateInput: authority.LateRollback,
	Settings: func(room string) uint64 { return uint64(seedFor(room)) },
	Init:     func(seed uint64) State { return NewState(uint32(seed)) },
}}

// netConfig is the netplay configuration of every network side.
func netConfig(o options) netplay.Config {
	cfg := netplay.Config{
		Signal: o.signal, Room: o.room, Name: o.name, Players: 2, FrameRate: o.fps, Settings: uint64(o.seed),
		InputDelay: netplay.DelayBounds{Min: o.delay, Max: o.delay}, Timeout: o.timeout,
		Tuning: netplay.Tuning{
			Relay:   o.relay,
			Archive: 10 * 60 * o.fps, // ten minutes for late spectators and rejoiners
			Net: rollnet.NetConfig{ChecksumInterval: checksumInterval, DisconnectTimeout: dropAfter,
				SyncTimeout: syncTimeout, RejoinWindow: -1},
		},
	}
	if o.frames > 0 {
		cfg.Tuning.Archive = o.frames + capacity // the whole match
	}
	if o.rejoin != "" {
		cfg.Tokens = netplay.FileStore(o.rejoin)
		cfg.Tuning.Net.RejoinWindow = rejoinWindow
	}
	cfg.Absence = o.absence
	if o.mode == modeAuthority {
		cfg.Players, cfg.Grace, cfg.LateInput = authPlayers, o.grace, authority.LateRollback
		cfg.PlayingSlots = 2 // the third is a spectator's: the match never waits for it
	}
	if o.impair != (impairment{}) {
		ic := o.impair.config(seedFor(o.name + o.room))
		cfg.Tuning.Impair = &ic
	}
	return cfg
}

// netMatch is a network match in any role: netplay's Status, Stats, News.
type netMatch struct {
	nm               *netplay.Match[State, Input]
	o                options
	now              func() time.Time
	out              io.Writer // progress lines (headless), nil: none
	st               netplay.Status
	desync           string // the first desync's line, kept once netplay repaired it (Status.Desync clears)
	err              error
	told             int           // News lines printed
	note             string        // the newest, for the screen
	refused          string        // -rejoin: the one line saying why the other player refused
	start, end       time.Time     // the first frame advanced (a host's: its client's arrival); the last (bytes/s), at frame last
	last, next       rollnet.Frame // next: the frame a P2P -rejoin player prints the checksum of next
	wireStart        wireCounts    // the transport's counts at start
	wireEnd          wireCounts    // and at end
	dbg              *debugging
	line             []byte // a checksum line being written
	ts               *playout.Timestep
	at               time.Time     // a host's previous tick; a rejoiner's last progress line
	draw             State         // an authoritative client's drawn world (compose)
	played, from     rollnet.Frame // the newest and the first host frame played (NoFrame before)
	done, heldFrames int           // ticks since its budget's last host state; frames its paddle was held
	lastOwn          float64
	names            [2]string
	back             bool // started from -rejoin's token
}

func newNetMatch(nm *netplay.Match[State, Input], o options, now func() time.Time) (*netMatch, error) {
	m := &netMatch{nm: nm, o: o, now: now, draw: NewState(o.seed), played: rollnet.NoFrame, from: rollnet.NoFrame,
		line: make([]byte, 0, 64), next: printEvery, lastOwn: math.NaN()}
	if _, m.back = nm.Token(); m.back {
		m.next = math.MaxInt32 // from its return on
	}
	var err error
	m.ts, err = playout.NewTimestep(playout.TimestepConfig{Step: time.Second / time.Duration(o.fps)})
	nm.OnSession(func() (err error) {
		*nm.State() = NewState(o.seed)
		if p := p2pOf(nm); p != nil {
			m.dbg, err = debugTo(p, o, nm.Seat())
		}
		return err
	})
	return m, err
}

func (m *netMatch) mode() netplay.Mode { return m.nm.Mode() }

func (m *netMatch) Side() int {
	if m.mode() == netplay.ModeHost {
		return 0
	}
	if s := m.nm.Seat(); s <= 1 {
		return s
	}
	return -1 // the authority mode's third slot: a spectator's
}

func (m *netMatch) State() *State {
	if s := m.nm.State(); s != nil && m.mode() != netplay.ModeClient {
		return s
	}
	return &m.draw
}

// Tick advances a frame, a host the frames of real time since its last.
func (m *netMatch) Tick(in Input) error {
	n := 1
	if m.mode() == netplay.ModeHost {
		now := m.now()
		dt := m.ts.Step()
		if !m.at.IsZero() {
			dt = now.Sub(m.at)
		}
		m.at, n = now, m.ts.Advance(dt)
		if m.o.frames > 0 {
			n = min(n, m.o.frames-int(m.nm.Frame()))
		}
	}
	for ; n > 0 && m.err == nil; n-- {
		m.inject()
		m.advance(in)
	}
	return m.err
}

// inject is -inject-desync F: a P2P player's state at F; a client's base
// host state from F on, until the checksums catch it.
func (m *netMatch) inject() {
	if p := p2pOf(m.nm); p != nil && m.o.inject > 0 && int(p.Frame()) == m.o.inject {
		p.State().Wins[m.Side()]++
	}
	if c := authClientOf(m.nm); c != nil && m.o.inject > 0 && m.desync == "" {
		if s, f := c.HostState(); s != nil && int(f) >= m.o.inject {
			s.Wins[1]++
		}
	}
}

// advance makes one AdvanceFrame and takes in what it says.
func (m *netMatch) advance(in Input) {
	st, err := m.nm.AdvanceFrame(in)
	if m.st = st; err != nil {
		m.err = m.failed(err)
		return
	}
	if m.desync == "" {
		m.desync = st.Desync
	}
	p := p2pOf(m.nm)
	for _, e := range m.nm.Events() {
		switch {
		case p != nil && e.Kind == rollnet.EventDesyncDetected:
			m.dbg.desync(p, e)
		case p != nil && e.Kind == rollnet.EventPlayerRejoined && e.Player == m.nm.Seat():
			m.next = (e.Frame + printEvery - 1) / printEvery * printEvery // back: from R on
		}
	}
	if st.Phase == netplay.Rejoining && m.now().Sub(m.at) >= time.Second {
		m.at = m.now()
		m.logf("pong: %v", st) // the catch-up's progress
	}
	m.name(0) // kept while known
	m.name(1)
	for news := m.nm.News(); m.told < len(news); m.told++ {
		m.note = news[m.told]
		m.logf("pong: %s", m.note)
	}
	client := m.mode() == netplay.ModeHost && m.slot1()
	// A host starts with its client, a client once its host gave it its slot.
	if ready := client || st.Advanced && m.mode() != netplay.ModeHost && (m.mode() != netplay.ModeClient || m.nm.Seat() >= 0); m.start.IsZero() && ready {
		m.start, m.wireStart = m.now(), m.wireCounts()
		m.startLine()
	}
	switch {
	case p != nil:
		for c := min(p.ConfirmedFrame(), p.Frame()-1); m.o.rejoin != "" && m.next <= c; m.next += printEvery {
			if crc, err := m.nm.ChecksumAt(m.next); err == nil {
				m.printSum(m.next, crc) // the process tests compare them across a rejoin
			}
		}
	case m.mode() == netplay.ModeHost:
		if f := m.nm.Frame() - 1; f%printEvery == 0 {
			crc, _ := m.nm.ChecksumAt(f)
			m.printSum(f, crc)
		}
		if !m.start.IsZero() && !client && !m.budgetSpent() {
			m.err = errPeerLeft // its client quit, or did not come back in time
		}
	case m.mode() == netplay.ModeClient:
		m.compose()
	}
	if st.Phase == netplay.Ended && m.err == nil {
		m.err = errPeerLeft
	}
}

// slot1 reports whether a client holds a host's right paddle.
func (m *netMatch) slot1() bool { return m.nm.Name(1) != "" }

func (m *netMatch) budgetSpent() bool { return m.o.frames > 0 && int(m.nm.Frame()) >= m.o.frames }

func (m *netMatch) startLine() {
	room, s := m.nm.Room(), m.Side()
	switch {
	case m.mode() == netplay.ModeP2P:
		if m.o.rejoin != "" && !m.back {
			m.logf("pong: rejoin token saved in %s", m.o.rejoin)
		}
		m.logf("pong: match started: %s (%s) against %s (%s) in room %s", m.name(s), sideName(s), m.name(1-s), m.nm.Peer(1-s), room)
	case m.mode() == netplay.ModeHost:
		m.logf("pong: match started: %s (left, host) in room %s (authority mode)", m.name(0), room)
		if m.o.rejoin != "" {
			m.note = "-rejoin " + m.o.rejoin + " unused: this process hosts the match, and a host keeps no token (its clients rejoin it; if it ends, so does the match)"
			m.logf("pong: %s", m.note)
		}
	case m.mode() == netplay.ModeClient && s < 0:
		m.logf("pong: match started: spectating %s in room %s (authority mode)", m.players(), room)
	case m.mode() == netplay.ModeClient:
		m.logf("pong: match started: %s (%s, client) in room %s (authority mode)", m.name(s), sideName(s), room)
		tok, _ := m.nm.Token()
		text, _ := tok.MarshalText()
		keep := "kept in " + m.o.rejoin + " (started again with -rejoin " + m.o.rejoin + ", this client takes its paddle back)"
		if m.o.rejoin == "" {
			keep = "not kept (with -rejoin FILE a restarted client takes its paddle back)"
		}
		m.note = "rejoin token " + keep
		m.logf("pong: rejoin token %s %s", tokenShown(text), keep)
	}
}

// tokenShown is a rejoin token as the demo's lines show it, redacted as a
// signaling URL's token= is: its version prefix, REDACTED, and a
// fingerprint (the first four bytes of its SHA-256) that tells two tokens
// apart without giving either away (a token takes its slot back, so it
// must not reach a terminal, a log or a parent's output).
func tokenShown(text []byte) string {
	prefix, _, _ := strings.Cut(string(text), ".")
	sum := sha256.Sum256(text)
	return fmt.Sprintf("%s.REDACTED#%x", prefix, sum[:4])
}

// failed says a fatal error of netplay's in the demo's words.
func (m *netMatch) failed(err error) error {
	room := m.nm.Room()
	var re *p2p.RejoinError
	var se *authority.SettingsError
	switch {
	case errors.As(err, &re):
		who := cmp.Or(m.nm.Name(1-m.nm.Seat()), "the "+sideName(1-m.nm.Seat())+" player")
		m.refused = fmt.Sprintf("pong: rejoin refused by %s: %s (%s removed)", who, re.Reason, m.o.rejoin)
	case errors.Is(err, netplay.ErrRoomFull), errors.Is(err, netplay.ErrMatchStarted):
		return fmt.Errorf("pong: room %s is full: two players are in it; add -spectate to watch their match", room)
	case errors.Is(err, netplay.ErrAuthorityRoom):
		return fmt.Errorf("pong: room %s holds a dedicated host (pong host): join it with -mode authority", room)
	case errors.Is(err, netplay.ErrP2PRoom):
		return fmt.Errorf("pong: room %s holds a P2P match, not a host: join it without -mode authority", room)
	case errors.Is(err, quic.ErrUntrusted):
		return fmt.Errorf("pong: %s: its certificate is self-signed and no -pin was given: add -pin with the sha256 the host logged when it started (\"quic listening\")", m.o.connect)
	case errors.Is(err, quic.ErrPinMismatch):
		return fmt.Errorf("pong: %s: its certificate is not the one -pin names: compare -pin with the sha256 the host logged when it started (\"quic listening\"); another certificate may be someone else's", m.o.connect)
	case errors.As(err, &se) && (se.Host.StateSize != se.Client.StateSize || se.Host.InputSize != se.Client.InputSize):
		return fmt.Errorf("pong: the host in room %s runs another game than pong (a %d-byte state and %d-byte inputs, pong's are %d and %d): host pong with pong host, or rollnet-host -game pong",
			room, se.Host.StateSize, se.Host.InputSize, se.Client.StateSize, se.Client.InputSize)
	case errors.Is(err, netplay.ErrSettings) && m.o.mode == modeAuthority && !errors.As(err, &se):
		return fmt.Errorf("pong: the host in room %s runs another game than pong, or pong at another -fps (%v): host pong with pong host, or rollnet-host -game pong", room, err)
	case errors.Is(err, netplay.ErrTimeout) && m.o.spectate && m.o.mode == modeP2P:
		return fmt.Errorf("pong: room %s: no match in it within %v; a spectator can join once both players are in the room", room, m.o.timeout)
	case errors.Is(err, netplay.ErrTimeout) && m.next == math.MaxInt32 && m.mode() == netplay.ModeP2P: // nobody of its match answers: over
		_ = os.Remove(m.o.rejoin)
		return fmt.Errorf("pong: -rejoin: nobody of the match in room %s answered within %v, so it is over (%s removed; start again to play a new one)", room, m.o.timeout, m.o.rejoin)
	}
	return fmt.Errorf("pong: %w", err)
}

// compose draws a client's world from the playout and its own paddle from
// the prediction, held to ownSpeed; it prints the played states' checksums.
func (m *netMatch) compose() {
	c := authClientOf(m.nm)
	if c == nil || !c.Synchronized() {
		return
	}
	if s, f, ok := c.Played(); ok && f != m.played {
		if m.played = f; m.from == rollnet.NoFrame {
			m.from = f // a player counts its own frames; a spectator the match's
			if m.Side() < 0 {
				m.from = 0
			}
		}
		if f%printEvery == 0 {
			m.printSum(f, rollback.Checksum(rollback.BytesOf(s))) // the host's checksum of it
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
	} else if own = float64(c.State().PaddleY[me]); c.Previous() != nil {
		own = lerp(c.Previous().PaddleY[me], c.State().PaddleY[me], c.Alpha())
		if d := own - m.lastOwn; math.Abs(d) > ownSpeed*PaddleV {
			own = m.lastOwn + math.Copysign(ownSpeed*PaddleV, d)
			m.heldFrames++
		}
		m.lastOwn = own
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

// frames played: a client's from its first host state (as -frames), else the match's.
func (m *netMatch) frames() int32 {
	switch {
	case m.mode() != netplay.ModeClient:
		return int32(m.nm.Frame())
	case m.from == rollnet.NoFrame:
		return 0
	case m.o.frames > 0 && (m.played-m.from+1 >= rollnet.Frame(m.o.frames) || m.done >= lastStates):
		// (a loaded machine's playout may jump onto the states past the budget)
		return int32(m.o.frames)
	}
	return int32(m.played - m.from + 1)
}

// finish goes on up to linger (a host: hostLinger) after the budget, until
// the others leave: they confirm their last frames, or play theirs out.
func (m *netMatch) finish(tick time.Duration) {
	m.end, m.last, m.wireEnd = m.now(), m.nm.Frame(), m.wireCounts()
	wait := linger
	if m.mode() == netplay.ModeHost {
		wait = hostLinger
	}
	for deadline := m.now().Add(wait); m.err == nil && m.budgetSpent() && m.now().Before(deadline); time.Sleep(tick) {
		if m.mode() == netplay.ModeHost && !m.slot1() || m.mode() != netplay.ModeHost && m.mode() != netplay.ModeP2P {
			return
		}
		m.advance(Bot(m.nm.State(), m.Side()))
	}
}

// name is side's player's name, kept once known ("?" before).
func (m *netMatch) name(side int) string {
	if n := m.nm.Name(side); n != "" {
		m.names[side] = n
	}
	return cmp.Or(m.names[side], "?")
}

func (m *netMatch) players() string { return m.name(0) + " (left) vs " + m.name(1) + " (right)" }

func (m *netMatch) title() string {
	switch s := m.Side(); {
	case m.nm.State() == nil:
		return m.o.name + " (you)"
	case s < 0:
		return "spectating " + m.players()
	default:
		return fmt.Sprintf("%s (you, %s) vs %s", m.name(s), m.role(), m.name(1-s))
	}
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

// noteLine is the status while something is waited for, else the news.
func (m *netMatch) noteLine() string {
	if st := m.st; st.Phase != netplay.Ended && (st.Phase <= netplay.Synchronizing || st.Interrupted != "" || st.Away != "" || st.Waiting != "" || st.Awaiting != "") {
		return st.String()
	}
	return m.note
}

// desyncLine is the first desync netplay found, and, once it was
// repaired in place, what the repair said: the demo exists to show the
// simulations agree, so a repaired desync is still one.
func (m *netMatch) desyncLine() string {
	if m.desync != "" && m.st.Desync == "" && m.st.Repaired != "" {
		return m.desync + "; " + m.st.Repaired
	}
	return m.desync
}

func (m *netMatch) HUD() hud {
	s := m.nm.Stats()
	h := hud{
		Title: m.title(), Frame: m.frames(), Confirmed: m.frames() - 1,
		LoopRTT: s.RTT, NetRTT: s.NetworkRTT, Path: s.Route, Advantage: m.st.FrameAdvantage,
		RollbacksS: s.RollbacksPerSecond, Rollbacks: int64(s.Rollbacks), Deepest: s.DeepestRollback,
		Compared: s.Compared, Agreed: s.Agreed, Desync: m.desyncLine(), Note: m.noteLine(),
		Impair: m.impairNote(), ImpairRTT: 2 * m.o.impair.Latency,
	}
	if m.st.Phase == netplay.Rejoining {
		h.Rejoining = m.st.String()
	}
	if m.mode() == netplay.ModeHost {
		h.Checks = "states checked " + hostChecked
	}
	if p := p2pOf(m.nm); p != nil {
		h.Confirmed = int32(min(p.ConfirmedFrame(), p.Frame()-1))
	}
	if sp := spectatorOf(m.nm); sp != nil {
		h.Advantage, h.Progress = -sp.Behind(), fmt.Sprintf("%d frames behind the host", sp.Behind())
		if m.catchingUp() {
			h.Progress = fmt.Sprintf("catching up with the host: %d frames to go", sp.Behind())
		}
	}
	if c := authClientOf(m.nm); c != nil {
		st := c.Stats()
		qs, resyncs := c.PlayoutStats()
		h.Progress = fmt.Sprintf("predicting %d  buffer %.1f, rate %+.1f%%", c.Frame(), st.Depth, 100*st.Rate)
		if m.played != rollnet.NoFrame {
			h.MatchFrame = int32(m.played)
		}
		h.Auth = fmt.Sprintf("playout stalls %d, jumps %d, own paddle held %d", qs.Stalls+resyncs, qs.Jumps, m.heldFrames)
	}
	return h
}

func (m *netMatch) Report() report {
	s := m.nm.Stats()
	r := report{
		Role: m.role(), Frames: m.frames(), Compared: int(s.Compared), Desyncs: int(s.Compared - s.Agreed),
		First: int32(s.FirstDesync), Desync: m.desyncLine(), Forensics: m.dbg.forensics(),
		Rollbacks: int64(s.Rollbacks), Deepest: s.DeepestRollback, Resim: int64(s.Resimulated),
		LoopRTT: s.RTT, NetRTT: s.NetworkRTT, WebRTC: webRTCOf(m.nm) != nil,
		Score: m.State().Score, Wins: m.State().Wins, Players: m.players(), Impair: m.impairNote(),
		News: m.nm.News(), Refused: m.refused, Extra: m.extra(),
	}
	if r.Desync != "" {
		r.Desyncs = max(r.Desyncs, 1)
	}
	if m.last > 0 && (m.mode() == netplay.ModeHost || m.mode() == netplay.ModeP2P) {
		r.Frames = int32(m.last) // not the frames it went on for after its budget
		if m.mode() == netplay.ModeP2P {
			r.Ran = int32(m.nm.Frame()) // a recording holds them all, its checksums compared them
		}
	}
	if m.mode() == netplay.ModeSpectator && m.o.frames > 0 {
		r.Frames = min(r.Frames, int32(m.o.frames)) // its catch-up takes several frames a tick, past the budget
	}
	if r.WebRTC { // the candidate pair ICE selected, and when the first channel opened
		if r.Path = cmp.Or(s.Route, "unknown"); s.Opened > 0 {
			r.Path += fmt.Sprintf(", open %v after joining", s.Opened.Round(time.Millisecond))
		}
	}
	if d := cmp.Or(m.end, m.now()).Sub(m.start).Seconds(); !m.start.IsZero() && d > 0 {
		r.OutBPS, r.InBPS = float64(s.BytesSent)/d, float64(s.BytesReceived)/d
		r.Wire = m.wire(d)
	}
	switch {
	case m.start.IsZero() && m.err != nil && !errors.Is(m.err, errPeerLeft):
		r.Err = m.err.Error()
	case m.start.IsZero() && m.mode() == netplay.ModeHost:
		r.Err = "no client joined"
	case m.start.IsZero():
		r.Err = "the match never started (no handshake)"
	case errors.Is(m.err, errPeerLeft) && (m.o.frames == 0 && !m.o.child || int(r.Frames) < m.o.frames):
		r.Left = m.note // the others left before the budget's end (a child plays until its parent leaves)
	case m.err != nil && !errors.Is(m.err, errPeerLeft):
		r.Err = m.err.Error()
	}
	return r
}

// wireCounts are a transport's datagram counts, and the overhead of its
// kind on the wire (o.Name "" over a transport that is not a network's).
type wireCounts struct {
	o                              transportfigures.Overhead
	sent, sentBytes, got, gotBytes float64
}

func (m *netMatch) wireCounts() wireCounts {
	if rtc := webRTCOf(m.nm); rtc != nil {
		st := rtc.Stats()
		return wireCounts{transportfigures.WebRTC, float64(st.PacketsSent), float64(st.BytesSent), float64(st.PacketsReceived), float64(st.BytesReceived)}
	}
	if qt, ok := m.nm.Transport().(quic.Transport); ok {
		st := qt.Stats()
		return wireCounts{transportfigures.QUIC, float64(st.PacketsSent), float64(st.BytesSent), float64(st.PacketsReceived), float64(st.BytesReceived)}
	}
	if ut, ok := m.nm.Transport().(udp.Transport); ok {
		// Its bytes sent are sealed (kind, sequence, tag: the overhead's
		// 25 a packet past the headers), its bytes received the payload.
		st, sealed := ut.Stats(), float64(transportfigures.SealedUDP.Packet-transportfigures.UDP.Packet)
		return wireCounts{transportfigures.SealedUDP, float64(st.PacketsSent), float64(st.BytesSent) - sealed*float64(st.PacketsSent),
			float64(st.PacketsReceived), float64(st.BytesReceived)}
	}
	return wireCounts{}
}

// wire is the report's line on the bytes and packets on the wire a
// second over the d seconds of the match (the datagrams since its first
// frame, until its last), headers and acknowledgements included,
// computed from the transport's datagram counts (see
// transportfigures.Overhead); "" over a transport that is not a
// network's.
func (m *netMatch) wire(d float64) string {
	now := m.wireEnd
	if m.end.IsZero() {
		now = m.wireCounts()
	}
	w := m.wireStart
	if w.o.Name == "" || now.o.Name != w.o.Name {
		return ""
	}
	return w.o.Line((now.sent-w.sent)/d, (now.sentBytes-w.sentBytes)/d, (now.got-w.got)/d, (now.gotBytes-w.gotBytes)/d)
}

func (m *netMatch) extra() (out []string) {
	if h := authHostOf(m.nm); h != nil {
		st := h.Stats()
		out = append(out, fmt.Sprintf("clients             joined %d, rejoined %d, expired %d (each one's inputs and their lateness: its own report)", st.Joined, st.Rejoined, st.Expired))
	}
	if c := authClientOf(m.nm); c != nil {
		st := c.Stats()
		qs, resyncs := c.PlayoutStats()
		out = append(out,
			fmt.Sprintf("host states         %d applied (frames %d to %d played), %d dropped; %d matched the prediction, %d did not; advice: inputs %.1f frames early, rate %+.1f%%",
				st.StatesApplied, m.from, m.played, st.StatesDropped, st.Matches, st.Mismatches, st.Depth, 100*st.Rate),
			fmt.Sprintf("playout             %d played, %d coasted, stalls %d, jumps %d, underruns %d, clock resyncs %d; own paddle held to its top speed on %d drawn frames",
				qs.Applied, qs.Coasted, qs.Stalls, qs.Jumps, qs.Underruns, resyncs, m.heldFrames))
	}
	if rtc := webRTCOf(m.nm); rtc != nil {
		if st := rtc.Stats(); st.SendsSkipped+st.SendsStale+st.ReceivesDropped+st.SendErrors > 0 {
			out = append(out, fmt.Sprintf("WebRTC dropped      %d sends (%d stale, %d bulk refused), %d receives (queue full), %d send errors",
				st.SendsSkipped+st.SendsStale, st.SendsStale, st.SendsSkipped, st.ReceivesDropped, st.SendErrors))
		}
		if st := rtc.Stats(); st.SendsSuperseded > 0 {
			out = append(out, fmt.Sprintf("WebRTC superseded   %d sends by newer ones of their kind (channel above its threshold)", st.SendsSuperseded))
		}
	}
	if ut, ok := m.nm.Transport().(udp.Transport); ok { // a client of a dedicated host over transport/udp
		if st := ut.Stats(); st.SendsSkipped+st.SendsStale+st.SendsSuperseded+st.Dropped+st.SendErrors > 0 {
			out = append(out, fmt.Sprintf("UDP dropped         %d sends (%d stale, %d bulk refused), %d superseded by newer ones of their kind, %d receives (queue full), %d send errors",
				st.SendsSkipped+st.SendsStale, st.SendsStale, st.SendsSkipped, st.SendsSuperseded, st.Dropped, st.SendErrors))
		}
	}
	if qt, ok := m.nm.Transport().(quic.Transport); ok { // a client of a dedicated host, not impaired
		if st := qt.Stats(); st.SendsSkipped+st.SendsStale+st.SendsSuperseded+st.ReceivesDropped+st.SendErrors > 0 {
			out = append(out, fmt.Sprintf("QUIC dropped        %d sends (%d stale, %d bulk refused), %d superseded by newer ones of their kind, %d receives (queue full), %d send errors",
				st.SendsSkipped+st.SendsStale, st.SendsStale, st.SendsSkipped, st.SendsSuperseded, st.ReceivesDropped, st.SendErrors))
		}
	}
	return out
}

func (m *netMatch) impairNote() string {
	imp, ok := m.nm.Transport().(impair.Transport)
	if !ok {
		return ""
	}
	st := imp.Stats()
	return fmt.Sprintf("%s (lost on purpose: %d received, %d sent)", m.o.impair.label(), st.LostIn, st.LostOut)
}

// catchingUp reports whether a spectator fast-forwards (not drawn).
func (m *netMatch) catchingUp() bool { return m.st.Phase == netplay.CatchingUp }

func (m *netMatch) Close() error { return errors.Join(m.nm.Close(), m.dbg.close()) }

func (m *netMatch) logf(format string, args ...any) {
	if m.out != nil {
		fmt.Fprintf(m.out, format+"\n", args...)
	}
}

// printSum writes "pong: checksum frame F X" without allocating (tests compare them).
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
