package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/authority/cmd/hostcmd"
	"github.com/rollnet/rollnet/demo/pong/game"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/playout"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/impair"
	"github.com/rollnet/rollnet/transport/webrtc"
)

// The server-authoritative mode (-mode authority), on package netplay:
// the room's first player hosts (netplay.HostOrConnect: a listen server
// holding slot 0), the next one is its client (slot 1), which predicts its
// own paddle and draws the ball and the host's paddle from the paced
// playout; a third client is a spectator (slot 2). Both sides exchange the
// checksums of the states the client applied as netplay messages
// (sums.go). See authClient for the client.

// Modes (-mode).
const (
	modeP2P       = "p2p"
	modeAuthority = "authority"
)

// The dedicated pong host's checksums of the frames since the last it
// announced, and the message (one host per process).
var (
	dedicatedBatch [checksumInterval]uint32
	dedicatedSums  = make([]byte, 0, sumsMax)
)

func init() {
	// The dedicated pong host (pong host) runs the same simulation with
	// both players as clients.
	hostcmd.Register("pong", hostcmd.Sim[State, Input]{
		Players:  authPlayers,
		Simulate: simulate,
		Settings: func(room string) uint64 { return uint64(seedFor(room)) },
		Init:     func(seed uint64) State { return NewState(uint32(seed)) },
		// LateRollback, as the listen server: a late input rolls the host
		// back instead of landing a frame later.
		LateInput: authority.LateRollback,
		// The host's checksums, as the listen server sends them (sums.go).
		Announce: func(dst []byte, f rollnet.Frame, crc uint32) []byte {
			dedicatedBatch[f%checksumInterval] = crc
			if f%checksumInterval != checksumInterval-1 {
				return dst
			}
			dedicatedSums = appendSums(dedicatedSums[:0], int32(f)-checksumInterval+1, dedicatedBatch[:])
			return netplay.AppendMessage(dst, dedicatedSums)
		},
	})
}

// authPlayers is the slots of the authority mode: the left paddle, the
// right one and a spectator's (a client whose input moves nothing: the
// authority package has no client without a slot). The players join
// first; the third client is the spectator.
const authPlayers = game.AuthoritySlots

// authConfig is the netplay configuration of every side of the mode: the
// same slots, frame rate and settings (the serve seed), or the host
// refuses the client at once (netplay.ErrSettings).
func authConfig(o options) netplay.Config {
	cfg := netplay.Config{
		Signal: o.signal, Room: o.room, Name: o.name, Players: authPlayers, FrameRate: o.fps,
		Settings: uint64(o.seed), Timeout: o.timeout, Grace: o.grace, LateInput: authority.LateRollback,
		Relay: o.relay,
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

// authHost is the left player's side: the host.
type authHost struct {
	matchLog
	nm      *netplay.Match[State, Input]
	h       *authority.Host[State, Input] // nm's
	st      netplay.Status
	client  transport.Peer // the connection of the client, once it joined
	sums    checks
	batch   [checksumInterval]uint32
	buf     []byte
	cs      []authority.HostClientStats
	gone    bool // the client quit, or vanished and its grace window ran out
	away    bool // the client vanished: it may resume within the grace window
	expired uint64
	budget  int32 // the frame the budget was spent at (the report's frames), 0 before
	ts      *playout.Timestep
	last    time.Time
	joined  uint64 // clients joined or resumed
	resumed uint64
	news    []string // clients resuming or joining again, for the report
	rb      rate
}

func newAuthHost(nm *netplay.Match[State, Input], o options, now func() time.Time) (*authHost, error) {
	m := &authHost{matchLog: newMatchLog(o, now), nm: nm, h: nm.AuthHost(), sums: newChecks(), buf: make([]byte, 0, sumsMax)}
	m.link = linkOfMatch(nm)
	ts, err := playout.NewTimestep(playout.TimestepConfig{Step: time.Second / time.Duration(o.fps)})
	if err != nil {
		return nil, err
	}
	m.ts = ts
	m.names[0] = o.name
	m.note = "waiting for a client"
	return m, nil
}

// onSums takes the checksums the client in seat 1 sends (a spectator's
// are not compared).
func (m *authHost) onSums(seat int, first int32, crcs []uint32) {
	if seat != 1 {
		return
	}
	for i, crc := range crcs {
		m.sums.other(first+int32(i), crc)
	}
}

func (m *authHost) Side() int     { return 0 }
func (m *authHost) State() *State { return m.h.State() }

// Tick runs the host's frames for the time since the last Tick: the host
// keeps real time (a fixed step on the wall clock, catching up on a late
// tick) so its clients, which do the same, keep their lead.
func (m *authHost) Tick(in Input) error {
	if m.err != nil {
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
		n = min(n, m.o.frames-int(m.h.Frame()))
	}
	for range n {
		if err := m.step(in); err != nil {
			m.err = err
			return err
		}
		m.drain()
	}
	if m.err == nil && m.gone && (m.o.frames == 0 || int(m.h.Frame()) < m.o.frames) {
		m.err = errPeerLeft
	}
	m.desyncs = m.sums.desyncs()
	return m.err
}

// step advances the host one frame and sends the client its checksums.
func (m *authHost) step(in Input) error {
	st, err := m.nm.AdvanceFrame(in)
	if err != nil {
		return err
	}
	m.st = st
	f := int32(m.h.Frame() - 1)
	crc, _ := m.h.ChecksumAt(rollnet.Frame(f))
	m.sums.own(f, crc)
	m.batch[f%checksumInterval] = crc
	if f%checksumInterval == checksumInterval-1 && m.client != "" {
		m.buf = appendSums(m.buf[:0], f-checksumInterval+1, m.batch[:])
		_ = m.nm.Send(m.buf) // the player, and a spectator
	}
	if f%printEvery == 0 {
		m.printSum(rollnet.Frame(f), crc)
	}
	m.advanced()
	return nil
}

// drain notes the client joining, and its link's news.
func (m *authHost) drain() {
	if st := m.h.Stats(); st.Joined+st.Rejoined > m.joined {
		resumed := st.Rejoined > m.resumed
		m.joined, m.resumed = st.Joined+st.Rejoined, st.Rejoined
		if m.opened == 0 && !m.inRoom.IsZero() { // a host's first channel: its first client's
			m.opened = max(time.Since(m.inRoom), time.Millisecond)
		}
		m.cs = m.h.Clients(m.cs[:0])
		if i := playerOf(m.cs); i >= 0 && (m.cs[i].Peer != m.client || resumed) {
			m.client, m.gone, m.away = m.cs[i].Peer, false, false
			m.silentSince, m.left, m.note = time.Time{}, "", ""
			if resumed {
				m.news = append(m.news, fmt.Sprintf("the client rejoined: its paddle back at frame %d (%s)", m.h.Frame(), short(m.client)))
			} else if m.joined > 1 {
				m.news = append(m.news, fmt.Sprintf("a client joined afresh at frame %d (%s)", m.h.Frame(), short(m.client)))
			}
			how := "joined"
			if resumed {
				how = "rejoined"
			}
			m.logf("pong: match started: %s (left, host) and the client %s %s at frame %d in room %s (authority mode)",
				m.names[0], short(m.client), how, m.h.Frame(), m.room())
		} else {
			msg := fmt.Sprintf("a spectator joined at frame %d", m.h.Frame())
			m.note = msg
			m.news = append(m.news, msg)
			m.logf("pong: %s", msg)
		}
	}
	if n := m.nm.Name(1); n != "" {
		m.names[1] = n // the client's, from its hello
	}
	for _, e := range m.nm.Events() {
		if e.Peer != m.client {
			continue
		}
		vanished := !m.silentSince.IsZero()
		m.opponentEvent(e, "the client", m.h.Frame())
		if e.Kind == rollnet.EventDisconnected {
			if vanished {
				// It may come back with its token (pong -rejoin FILE).
				m.away = true
				m.logf("pong: %s; its paddle is kept for %v for it to rejoin", m.left, m.o.grace)
			} else {
				m.gone = true
			}
		}
	}
	if st := m.h.Stats(); st.Expired > m.expired {
		m.expired = st.Expired
		if m.away {
			m.gone = true
			m.left += fmt.Sprintf("; it did not rejoin within %v", m.o.grace)
		}
	}
}

// finish keeps hosting after the frame budget, up to linger, until the
// client has played its last states out and left.
func (m *authHost) finish(tick time.Duration) {
	m.end = m.now()
	m.budget = int32(m.h.Frame())
	if m.err != nil || m.gone || m.o.frames == 0 || int(m.budget) < m.o.frames {
		return
	}
	deadline := m.now().Add(linger)
	for m.now().Before(deadline) && !m.gone && m.err == nil {
		if err := m.step(Bot(m.h.State(), 0)); err != nil {
			return
		}
		m.drain()
		time.Sleep(tick)
	}
}

// playerOf is the index in cs of the client that plays the right paddle
// (slot 1), -1 if none: a third client is a spectator.
func playerOf(cs []authority.HostClientStats) int {
	for i, c := range cs {
		if c.First == 1 && !c.Away {
			return i
		}
	}
	return -1
}

func (m *authHost) clientStats() (authority.HostClientStats, bool) {
	m.cs = m.h.Clients(m.cs[:0])
	for _, c := range m.cs {
		if c.Peer == m.client {
			return c, true
		}
	}
	return authority.HostClientStats{}, false
}

func (m *authHost) HUD() hud {
	st := m.h.Stats()
	cs, _ := m.clientStats()
	h := hud{
		Title:      fmt.Sprintf("%s (you, host) vs %s", m.names[0], m.nameOf(1, m.client)),
		Frame:      int32(m.h.Frame()),
		Confirmed:  int32(m.h.Frame()) - 1,
		LoopRTT:    cs.Link.RTT,
		NetRTT:     m.networkRTT(m.client),
		Path:       m.netRoute,
		RollbacksS: m.rb.sample(m.now(), int64(st.Rollbacks)),
		Rollbacks:  int64(st.Rollbacks),
		Compared:   uint64(m.sums.compared),
		Agreed:     uint64(m.sums.agree),
		Note:       awayNote(m.st, m.silence("the client")),
		Impair:     m.impairNote(),
		ImpairRTT:  m.impairRTT(),
	}
	h.Progress = fmt.Sprintf("(host)  rollbacks %.0f/s (%d, resim %d)", h.RollbacksS, st.Rollbacks, st.ResimulatedFrames)
	h.Auth = fmt.Sprintf("client's inputs %.1f frames early, advised %+.1f%%, late %d, predicted %d",
		cs.Depth, 100*cs.Rate, cs.LateInputs, cs.PredictedInputs)
	if m.sums.first >= 0 {
		h.Desync = fmt.Sprintf("frame %d: host %08x, client applied %08x", m.sums.first, m.sums.firstMine, m.sums.firstTheirs)
	}
	return h
}

func (m *authHost) Report() report {
	st := m.h.Stats()
	cs, _ := m.clientStats()
	frames := m.budget
	if frames == 0 {
		frames = int32(m.h.Frame())
	}
	r := report{
		Role:      "left, host",
		Frames:    frames,
		Compared:  m.sums.compared,
		Desyncs:   m.sums.desyncs(),
		First:     m.sums.first,
		Checks:    "states the client applied, against the host's",
		Rollbacks: int64(st.Rollbacks),
		Resim:     int64(st.ResimulatedFrames),
		LoopRTT:   cs.Link.RTT,
		NetRTT:    m.networkRTT(m.client),
		Path:      m.networkPath(),
		WebRTC:    m.rtc != nil,
		Score:     m.h.State().Score,
		Wins:      m.h.State().Wins,
		Players:   fmt.Sprintf("%s (left, host) vs %s (right, client)", m.names[0], m.nameOf(1, m.client)),
		Impair:    m.impairNote(),
	}
	r.Extra = []string{
		fmt.Sprintf("client's inputs     %.1f frames early at the end, advised rate %+.1f%%", cs.Depth, 100*cs.Rate),
		fmt.Sprintf("late inputs         %d (rolled back for %d, applied late %d, dropped %d), predicted %d, lost %d",
			cs.LateInputs, cs.LateRolledBack, cs.LateApplied, cs.LateDropped, cs.PredictedInputs, cs.InputsLost),
		fmt.Sprintf("states sent         %d (%d full), Nacks served %d, joined %d, rejoined %d",
			cs.StatesSent, cs.FullStates, cs.NacksServed, st.Joined, st.Rejoined),
	}
	for _, n := range m.news {
		r.Extra = append(r.Extra, "                    "+n)
	}
	r.Extra = append(r.Extra, webrtcLine(m.rtc)...)
	if d := m.end.Sub(m.start).Seconds(); !m.start.IsZero() && d > 0 {
		r.OutBPS, r.InBPS = float64(cs.Link.BytesSent)/d, float64(cs.Link.BytesReceived)/d
	}
	switch {
	case m.joined == 0 && m.err != nil:
		r.Err = m.err.Error()
	case m.joined == 0:
		r.Err = "no client joined"
	case m.err == errPeerLeft:
		if m.leftEarly(frames) {
			r.Left = m.left
		}
	case m.err != nil:
		r.Err = m.err.Error()
	}
	return r
}

func (m *authHost) Close() error { return m.closed(nil) }

// webrtcLine is the report's line of what WebRTC dropped, if anything:
// a datagram sent while the data channel holds more than its threshold is
// skipped (a burst, such as -impair's delayed datagrams released at once).
func webrtcLine(rtc *webrtc.Transport) []string {
	if rtc == nil {
		return nil
	}
	st := rtc.Stats()
	if st.SendsSkipped+st.ReceivesDropped+st.SendErrors == 0 {
		return nil
	}
	return []string{fmt.Sprintf("WebRTC dropped      %d sends (channel above its threshold), %d receives (queue full), %d send errors",
		st.SendsSkipped, st.ReceivesDropped, st.SendErrors)}
}

// crcOf is the CRC32-C of a state's bytes, the host's Checksum.
func crcOf(s *State) uint32 { return rollback.Checksum(rollback.BytesOf(s)) }

// extraLines is the report's mode lines, indented as the others.
func extraLines(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

// awayNote is the screen's note while a player is away (who, and how
// long it may still come back), else note.
func awayNote(st netplay.Status, note string) string {
	if st.Away == "" || st.ComeBack <= 0 {
		return note
	}
	return fmt.Sprintf("%s is away: may come back for %d s", st.Away, int((st.ComeBack+time.Second-1)/time.Second))
}

// linkOfMatch is what the screen shows of nm's connection.
func linkOfMatch(nm *netplay.Match[State, Input]) link {
	l := link{rtc: nm.WebRTC(), roomName: nm.Room(), closer: func() { _ = nm.Close() }}
	l.imp, _ = nm.Transport().(*impair.Transport)
	return l
}

// runAuth plays the authority mode: it joins the room (or, with -connect,
// dials the host over QUIC), hosts or connects, calls joined (if not nil) once in
// the room, and plays.
func runAuth(ctx context.Context, o options, stdout, stderr io.Writer, joined func() error) int {
	o.seed = o.seedOr(o.room)
	cfg := authConfig(o)
	var sink func(seat int, first int32, crcs []uint32)
	crcs := make([]uint32, 0, maxSums)
	cfg.OnMessage = func(seat int, _ string, payload []byte) {
		if first, cs, err := parseSums(payload, crcs[:0]); err == nil && sink != nil {
			sink(seat, first, cs)
		}
	}
	start := netplay.HostOrConnect[State, Input]
	switch {
	case o.connect != "":
		o.say(stdout, "pong: dialing %s", o.connect)
		host := netplay.QUICHost{URL: o.connect, PinSHA256: o.pinHash}
		start = func(cfg netplay.Config, sim func(*State, []Input, rollnet.Frame)) (*netplay.Match[State, Input], error) {
			return netplay.ConnectQUIC(cfg, host, sim)
		}
	case o.side == 0 && !o.spectate:
		cfg.LocalPlayers = 1
		start = netplay.Host[State, Input]
	case o.side == 1 || o.spectate:
		start = netplay.Connect[State, Input]
	}
	nm, err := start(cfg, simulate)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFailure
	}
	nm.OnSession(func() error {
		*nm.State() = NewState(o.seed)
		return nil
	})
	what := func() string {
		if nm.Mode() == netplay.ModeHost {
			return fmt.Sprintf("hosting: waiting up to %v for a client", o.timeout)
		}
		return "joining its host"
	}
	inRoom, opened, err := joinRoom(ctx, nm, o, stdout, what, joined, func() bool { return nm.Mode() != netplay.ModeHost || nm.AuthHost() != nil })
	if err != nil {
		_ = nm.Close()
		if !errors.Is(err, errCancelled) {
			err = fmt.Errorf("pong: %w", err)
		}
		return connectFailed(err, stdout, stderr)
	}
	var m match
	if nm.Mode() == netplay.ModeHost {
		h, err := newAuthHost(nm, o, time.Now)
		if err != nil {
			_ = nm.Close()
			fmt.Fprintln(stderr, err)
			return exitFailure
		}
		h.inRoom, h.opened = inRoom, opened
		sink, m = h.onSums, h
		if o.headless {
			h.out = stdout
		}
	} else {
		c, err := newAuthClient(nm, o, time.Now)
		if err != nil {
			_ = nm.Close()
			fmt.Fprintln(stderr, err)
			return exitFailure
		}
		c.inRoom, c.opened = inRoom, opened
		sink, m = c.onSums, c
		if o.headless {
			c.out = stdout
		}
	}
	return runLocal(ctx, m, o, stdout, stderr)
}
