package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/authority/cmd/hostcmd"
	"github.com/rollnet/rollnet/demo/pong/game"
	"github.com/rollnet/rollnet/playout"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/transport"
)

// The server-authoritative mode (-mode authority): the left player hosts
// (an authority.Host, a listen server holding slot 0) and the right one is
// an authority.Client (slot 1) that predicts its own paddle and draws the
// ball and the host's paddle from the paced playout. Both run the same
// Step. See authClient for the client.

// Modes (-mode).
const (
	modeP2P       = "p2p"
	modeAuthority = "authority"
)

// dedicatedBatch is the dedicated pong host's checksums of the frames since
// the last it announced (one host per process).
var dedicatedBatch [checksumInterval]uint32

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
			return appendSums(dst, int32(f)-checksumInterval+1, dedicatedBatch[:])
		},
	})
}

// authPlayers is the slots of the authority mode: the left paddle, the
// right one and a spectator's (a client whose input moves nothing: the
// authority package has no client without a slot). The players join
// first; the third client is the spectator.
const authPlayers = game.AuthoritySlots

// printEvery is how many frames apart both sides print a checksum line
// headless (a test compares the two processes' lines).
const printEvery = 60

// authNet is the link settings of both sides: the same frame rate and
// game settings (the serve seed), or the client's Hello gets no answer.
func authNet(o options, now func() time.Time) rollnet.NetConfig {
	return rollnet.NetConfig{
		FrameRate:         o.fps,
		DisconnectTimeout: dropAfter,
		Settings:          uint64(o.seed),
		Now:               now,
	}
}

// hostConfig is the pong host's configuration: two slots, the host's own
// and one client's; a late input is rolled back for, so the host's world
// keeps the client's paddle where the client predicted it.
func hostConfig(o options, now func() time.Time) authority.HostConfig[Input] {
	return authority.HostConfig[Input]{
		Players: authPlayers, LocalPlayers: 1, SlotsPerClient: 1,
		LateInput: authority.LateRollback,
		Grace:     o.grace,
		Net:       authNet(o, now),
	}
}

// authHost is the left player's side: the host.
type authHost struct {
	matchLog
	h       *authority.Host[State, Input]
	mux     *sumsMux
	client  transport.Peer // the connection of the client, once it joined
	sums    checks
	batch   [checksumInterval]uint32
	buf     []byte
	cs      []authority.HostClientStats
	evs     []rollnet.Event
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

func newAuthHost(c *conn, o options, now func() time.Time) (*authHost, error) {
	m := &authHost{matchLog: newMatchLog(o, now), sums: newChecks(), buf: make([]byte, 0, max(sumsMax, helloMax))}
	m.c = c
	m.mux = newSumsMux(c.tr, func(from transport.Peer, first int32, crcs []uint32) {
		if from != m.client {
			return
		}
		for i, crc := range crcs {
			m.sums.other(first+int32(i), crc)
		}
	})
	ts, err := playout.NewTimestep(playout.TimestepConfig{Step: time.Second / time.Duration(o.fps)})
	if err != nil {
		return nil, err
	}
	m.ts = ts
	m.mux.onHello = func(from transport.Peer, h hello) {
		if h.Names[1] != "" && (m.client == "" || from == m.client || m.away) {
			m.names[1] = h.Names[1] // the player's (a spectator's hello names nobody)
		}
		// Answered as greet does (a datagram for a datagram, the same
		// size): the restarted client's greet ends at once.
		m.buf = hello{Heard: true, Names: m.names}.Append(m.buf[:0])
		_ = m.mux.Send(from, m.buf)
	}
	h, err := authority.NewHost[State](hostConfig(o, now), m.mux, simulate)
	if err != nil {
		return nil, fmt.Errorf("pong: host: %w", err)
	}
	*h.State() = NewState(o.seed)
	m.h = h
	m.names[0] = o.name
	m.note = "waiting for the client's hello"
	return m, nil
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
	_ = m.h.AddLocalInput(0, in)
	for range n {
		if err := m.step(); err != nil {
			m.err = err
			return err
		}
	}
	m.drain()
	if m.err == nil && m.gone && (m.o.frames == 0 || int(m.h.Frame()) < m.o.frames) {
		m.err = errPeerLeft
	}
	m.desyncs = m.sums.desyncs()
	return m.err
}

// step advances the host one frame and sends the client its checksums.
func (m *authHost) step() error {
	if err := m.h.AdvanceFrame(); err != nil {
		return err
	}
	f := int32(m.h.Frame() - 1)
	crc, _ := m.h.ChecksumAt(rollnet.Frame(f))
	m.sums.own(f, crc)
	m.batch[f%checksumInterval] = crc
	if f%checksumInterval == checksumInterval-1 && m.client != "" {
		m.buf = appendSums(m.buf[:0], f-checksumInterval+1, m.batch[:])
		m.cs = m.h.Clients(m.cs[:0])
		for _, c := range m.cs { // the player, and a spectator
			if !c.Away {
				_ = m.mux.Send(c.Peer, m.buf)
			}
		}
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
		m.cs = m.h.Clients(m.cs[:0])
		if i := playerOf(m.cs); i >= 0 && (m.cs[i].Peer != m.client || resumed) {
			m.client, m.gone, m.away = m.cs[i].Peer, false, false
			m.silentSince, m.left, m.note = time.Time{}, "", ""
			if m.names[1] == "" {
				m.names[1] = m.nameOf(1, m.client)
			}
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
	m.evs = m.h.Events(m.evs[:0])
	for _, e := range m.evs {
		if e.Peer != m.client {
			continue
		}
		vanished := !m.silentSince.IsZero()
		m.opponentEvent(e, "the client", m.h.Frame())
		if e.Kind == rollnet.EventDisconnected {
			if vanished {
				// It may come back with its token (pong -rejoin FILE).
				m.away = true
				m.note = fmt.Sprintf("%s; its paddle is kept for %v for it to rejoin", m.left, m.o.grace)
				m.logf("pong: %s", m.note)
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
		_ = m.h.AddLocalInput(0, Bot(m.h.State(), 0))
		if err := m.step(); err != nil {
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
		Note:       m.silence("the client"),
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
		WebRTC:    m.c != nil,
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
	r.Extra = append(r.Extra, webrtcLine(m.c)...)
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

func (m *authHost) Close() error {
	err := m.h.Close()
	return m.closed(err)
}

// newAuthMatch starts this side of the authority mode over an open
// connection, once the players have said their names: the first in the
// room hosts.
func newAuthMatch(ctx context.Context, c *conn, o options) (match, error) {
	side := o.side
	if side < 0 {
		side = 1
		if c.first && !o.spectate {
			side = 0
		}
	}
	o.seed = o.seedOr(c.room)
	var names [2]string
	if !o.spectate {
		names[side] = o.name
	}
	// A dedicated host does not answer: wait less than P2P does.
	h, listen := greet(ctx, c.tr, c.peer, hello{Names: names}, greetWithin/3)
	if listen {
		names[1-side] = h.Names[1-side]
		if o.spectate {
			names = h.Names
		}
	}
	if side == 0 {
		m, err := newAuthHost(c, o, time.Now)
		if err != nil {
			return nil, err
		}
		m.names[1] = names[1]
		return m, nil
	}
	m, err := newAuthClient(c, o, time.Now)
	if err != nil {
		return nil, err
	}
	m.names[0], m.listen = names[0], listen
	if o.spectate {
		m.names = names
	}
	return m, nil
}

// webrtcLine is the report's line of what WebRTC dropped, if anything:
// a datagram sent while the data channel holds more than its threshold is
// skipped (a burst, such as -impair's delayed datagrams released at once).
func webrtcLine(c *conn) []string {
	if c == nil || c.rtc == nil {
		return nil
	}
	st := c.rtc.Stats()
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

// runAuth plays the authority mode over an open connection.
func runAuth(ctx context.Context, c *conn, o options, stdout, stderr io.Writer) int {
	m, err := newAuthMatch(ctx, c, o)
	if err != nil {
		c.close()
		fmt.Fprintln(stderr, err)
		return exitFailure
	}
	if o.headless {
		switch m := m.(type) {
		case *authHost:
			m.out = stdout
		case *authClient:
			m.out = stdout
		}
	}
	return runLocal(ctx, m, o, stdout, stderr)
}
