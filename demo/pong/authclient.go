package main

import (
	"fmt"
	"math"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/playout"
	"github.com/rollnet/rollnet/transport"
)

// authClient is the right player's side of the authority mode: a client
// that predicts the whole world, draws its own paddle from its predicted
// present (blended between its last two steps) and the ball and the
// host's paddle from the paced playout at the render clock's time, and
// counts hitches on the frames it draws.
type authClient struct {
	matchLog
	nm   *netplay.Match[State, Input]
	cl   *authority.Client[State, Input] // nm's, once it found the host
	host transport.Peer                  // the host, once synchronized
	st   netplay.Status
	sums checks
	buf  []byte

	draw   State     // what is drawn: the playout's world with the own paddle predicted
	last   time.Time // the previous Tick
	period time.Duration
	side   int   // the slot the host gave, -1 before
	played int32 // the newest host frame the playout applied, -1 before
	// from is the host frame -frames counts from: 0 (the budget is the
	// match's frame number, as in P2P, so that a client back with -rejoin
	// ends with its host), or, for a client back past the budget's frame
	// (which ended it at once), the first host frame it played: then it
	// plays the budget's frames from there.
	from      int32
	fromSet   bool // from was decided, at the first host state
	rejoining bool
	synced    bool
	gone      bool
	hitch     hitches
	match     rate
	miss      rate
	mps       float64
	xps       float64
	done      int // ticks since the newest host state reached the frame budget

	// The own paddle's predicted place by frame, to measure what a
	// correction moved it by; smooth hides that in what is drawn.
	ownAt  [128]struct{ f, y int32 }
	smooth *playout.Smoother
	// The own paddle as last drawn, and the frames it was held to its
	// speed (see held).
	lastOwn    float64
	drawnOwn   bool
	heldFrames int
}

// smoothDecay is the fraction of a correction of the own paddle hidden in
// what is drawn that goes per step: a tenth, so that a correction of up
// to five frames of the paddle's travel never draws it faster than it
// moves (half again its speed, the hitch bound).
const smoothDecay = 0.1

// lastStates is how many ticks the client plays out after the host's
// state for the budget's last frame arrived: the render delay and then
// some.
const lastStates = 30

func newAuthClient(nm *netplay.Match[State, Input], o options, now func() time.Time) (*authClient, error) {
	m := &authClient{matchLog: newMatchLog(o, now), nm: nm, sums: newChecks(), buf: make([]byte, 0, sumsMax), played: -1, side: -1,
		period: time.Second / time.Duration(o.fps)}
	m.link = linkOfMatch(nm)
	tok, _ := nm.Token()
	m.rejoining = tok.Host != (authority.RejoinToken{})
	var err error
	if m.smooth, err = playout.NewSmoother(playout.SmootherConfig{Step: m.period, Decay: smoothDecay}); err != nil {
		return nil, err
	}
	m.draw = NewState(o.seed)
	m.note = "saying hello to the host"
	return m, nil
}

// onSums takes the host's checksums.
func (m *authClient) onSums(_ int, first int32, crcs []uint32) {
	for i, crc := range crcs {
		m.sums.other(first+int32(i), crc)
	}
}

// Side is the slot the host gave this client (-1 until it did): the
// right one from a listen server, either from a dedicated host.
func (m *authClient) Side() int     { return m.side }
func (m *authClient) State() *State { return &m.draw }

func (m *authClient) Tick(in Input) error {
	if m.err != nil {
		return m.err
	}
	m.noteOpen()
	now := m.now()
	dt := m.period
	if !m.last.IsZero() {
		dt = min(now.Sub(m.last), 250*time.Millisecond)
	}
	m.last = now
	st, err := m.nm.AdvanceFrame(in)
	if err != nil {
		m.err = fmt.Errorf("pong: %w", err)
		return m.err
	}
	m.st = st
	for i := range m.names {
		if n := m.nm.Name(i); n != "" {
			m.names[i] = n // the host's roster
		}
	}
	if m.cl = m.nm.AuthClient(); m.cl == nil {
		return nil // the host has not answered yet
	}
	if m.cl.Synchronized() && !m.synced {
		m.synced = true
		m.advanced()
		m.note = ""
		m.host = m.cl.Stats().Link.Peer
		if m.side = m.cl.Stats().First; m.side > 1 {
			m.side = -1 // the third slot: a spectator's
		}
		how := ""
		switch st := m.cl.Stats(); {
		case st.Rejoined:
			how = ", rejoined with -rejoin's token: the same paddle"
		case st.Rejected:
			how = ", -rejoin's token was refused (too late): a fresh paddle"
		}
		if m.side < 0 {
			m.logf("pong: match started: spectating %s in room %s (authority mode%s)", m.title(), m.room(), how)
		} else {
			m.logf("pong: match started: %s (%s, client) in room %s (authority mode%s)", m.names[m.side], sideName(m.side), m.room(), how)
		}
		if token, ok := m.cl.RejoinToken(); ok && m.side >= 0 {
			keep := m.keepToken()
			text, _ := netplay.Token{Mode: netplay.ModeClient, Room: m.o.room, Seat: m.side, Host: token}.MarshalText()
			m.logf("pong: rejoin token %s%s", text, keep)
			// On a terminal the log is not shown: the screen says where
			// the token is (or how to keep one) until something else
			// needs the line.
			m.note = "rejoin token" + keep
			if m.o.rejoin == "" {
				m.note = "no rejoin token kept: start with -rejoin FILE to take your paddle back after a crash"
			}
		}
	}
	m.smoothOwn(dt)
	if s, f := m.cl.HostState(); s != nil && !m.fromSet {
		m.fromSet = true
		if m.rejoining && m.o.frames > 0 && int(f) >= m.o.frames-1 {
			m.from = int32(f) // back past the budget: play it again from here
		}
	}
	if s, f, ok := m.cl.Played(); ok && int32(f) != m.played {
		m.played = int32(f)
		crc := crcOf(s)
		if m.o.inject > 0 && int(f) >= m.o.inject {
			bad := *s // -inject-desync: what this side applied is not the host's
			bad.Wins[1]++
			crc = crcOf(&bad)
		}
		m.sums.own(int32(f), crc)
		m.buf = appendSums(m.buf[:0], int32(f), []uint32{crc})
		_ = m.nm.Send(m.buf) // a dedicated host drops it
		if f%printEvery == 0 {
			m.printSum(f, crc)
		}
	}
	m.compose(dt)
	m.drain()
	if _, f := m.cl.HostState(); m.o.frames > 0 && int(f)-int(m.from) >= m.o.frames-1 {
		m.done++
	}
	if m.err == nil && m.gone && !m.finished() {
		m.err = errPeerLeft
	}
	m.desyncs = m.sums.desyncs()
	return m.err
}

// finished says the client has played the frame budget's states out.
func (m *authClient) finished() bool {
	return m.o.frames > 0 && (m.played-m.from >= int32(m.o.frames-1) || m.done >= lastStates)
}

// smoothOwn records the own paddle's predicted place and, when the last
// Update corrected a misprediction, hides the jump of the frame before in
// the smoother (what is drawn keeps its place, the difference decays).
func (m *authClient) smoothOwn(dt time.Duration) {
	if !m.cl.Synchronized() || m.side < 0 {
		return
	}
	if prev := m.cl.Previous(); prev != nil && m.cl.Corrected() {
		f := max(int32(m.cl.Frame())-2, 0)
		if was := m.ownAt[f%int32(len(m.ownAt))]; was.f == f {
			_ = m.smooth.Correct(playout.Vec{float64(prev.PaddleY[m.side] - was.y)})

		}
	}
	f := max(int32(m.cl.Frame())-1, 0)
	m.ownAt[f%int32(len(m.ownAt))] = struct{ f, y int32 }{f, m.cl.State().PaddleY[m.side]}
	m.smooth.Advance(dt)
}

func (m *authClient) drain() {
	for _, e := range m.nm.Events() {
		m.opponentEvent(e, "the host", m.cl.Frame())
		if e.Kind == rollnet.EventDisconnected {
			m.gone = true
		}
	}
}

// compose makes the drawn state: the world at the render clock's time
// from the playout (the ball and the host's paddle between the two host
// states around it), the own paddle from the predicted present, and counts
// hitches on it.
func (m *authClient) compose(dt time.Duration) {
	if !m.cl.Synchronized() {
		return
	}
	me, them := m.side, 1-m.side
	if me < 0 { // a spectator: both paddles from the playout, the left one as its own
		me, them = 0, 1
	}
	pred := m.cl.State()
	own := float64(pred.PaddleY[me])
	if prev := m.cl.Previous(); prev != nil {
		own = lerp(prev.PaddleY[me], pred.PaddleY[me], m.cl.Alpha())
	}
	own += m.smooth.Offset()[0]
	t, ok := m.cl.RenderTime()
	var a, b *State
	var w float64
	if ok {
		a, b, w, ok = m.cl.PlayoutAt(t)
	}
	if !ok {
		m.draw = *pred // until the playout starts, the prediction
		return
	}
	m.draw = *a
	if a.Wait == 0 && b.Wait == 0 && a.Score == b.Score && a.Matches == b.Matches {
		m.draw.BallX = int32(math.Round(lerp(a.BallX, b.BallX, w)))
		m.draw.BallY = int32(math.Round(lerp(a.BallY, b.BallY, w)))
	}
	m.draw.PaddleY[them] = int32(math.Round(lerp(a.PaddleY[them], b.PaddleY[them], w)))
	k := float64(dt) / float64(m.period)
	if m.side < 0 {
		own = lerp(a.PaddleY[me], b.PaddleY[me], w)
	} else {
		own = m.held(own, k)
	}
	m.draw.PaddleY[me] = int32(math.Round(own))
	m.hitch.drawn(own, lerp(a.PaddleY[them], b.PaddleY[them], w), &m.draw, k)
}

// ownSpeed bounds how fast the own paddle is drawn, in its top speeds: the
// timestep's dilation (at most 10%) and a third to catch up.
const ownSpeed = 1.4

// held is where to draw the own paddle this frame, k steps' time after the
// last: where the prediction (plus the smoother's offset) puts it, but
// never further from the last drawn place than ownSpeed times what the
// paddle can move: a correction the smoother could not measure (it came
// with more than one step) is caught up over a few frames, not jumped.
func (m *authClient) held(own, k float64) float64 {
	if m.drawnOwn {
		lim := ownSpeed * k * PaddleV
		if d := own - m.lastOwn; math.Abs(d) > lim {
			own = m.lastOwn + math.Copysign(lim, d)
			m.heldFrames++
		}
	}
	m.lastOwn, m.drawnOwn = own, true
	return own
}

func lerp(a, b int32, w float64) float64 { return float64(a) + float64(b-a)*w }

// hitches counts the drawn frames on which an entity moved in a way the
// game cannot: a jump, further than its top speed over the frame's time
// (half as far again, for the render clock's steering and the timestep's
// dilation), or, for the ball in play, a stall, not moving at all. A
// correction snapped into view, a playout that skipped or held a state,
// a render clock that jumped or stopped: each is a hitch.
type hitches struct {
	started          bool
	own, other       float64
	ballX, ballY     float64
	inPlay           bool
	Own, Other, Ball int
	Frames           int
}

func (h *hitches) drawn(own, other float64, s *State, k float64) {
	inPlay := s.Wait == 0 && s.Winner == 0
	bx, by := float64(s.BallX), float64(s.BallY)
	if h.started {
		h.Frames++
		lim := 1.5 * k
		if math.Abs(own-h.own) > lim*PaddleV+1 {
			h.Own++
		}
		if math.Abs(other-h.other) > lim*PaddleV+1 {
			h.Other++
		}
		if inPlay && h.inPlay {
			dx, dy := math.Abs(bx-h.ballX), math.Abs(by-h.ballY)
			if dx > lim*MaxVX+1 || dy > lim*MaxVY+1 || (dx == 0 && dy == 0) {
				h.Ball++
			}
		}
	}
	h.started = true
	h.own, h.other, h.ballX, h.ballY, h.inPlay = own, other, bx, by, inPlay
}

func (m *authClient) HUD() hud {
	if m.cl == nil {
		return hud{Title: m.title(), Note: awayNote(m.st, "waiting for the host's answer"), Impair: m.impairNote()}
	}
	st := m.cl.Stats()
	now := m.now()
	m.mps = m.match.sample(now, int64(st.Matches))
	m.xps = m.miss.sample(now, int64(st.Mismatches))
	qs, resyncs := m.cl.PlayoutStats()
	depth := 0.0
	if t, ok := m.cl.RenderTime(); ok {
		_, f := m.cl.HostState()
		depth = float64(f) - t
	}
	h := hud{
		Title:     m.title(),
		Frame:     m.played + 1 - m.from, // the budget's count (from: see the field)
		Confirmed: m.played,
		LoopRTT:   st.RTT,
		NetRTT:    m.networkRTT(m.host),
		Path:      m.netRoute,
		Compared:  uint64(m.sums.compared),
		Agreed:    uint64(m.sums.agree),
		Note:      awayNote(m.st, m.silence("the host")),
		Impair:    m.impairNote(),
		ImpairRTT: m.impairRTT(),
	}
	h.Progress = fmt.Sprintf("(predicting %d)  buffer %.1f, rate %+.1f%%  match %.0f/s, miss %.0f/s",
		m.cl.Frame(), st.Depth, 100*st.Rate, m.mps, m.xps)
	h.Auth = fmt.Sprintf("resim %d  playout %.1f deep, stalls %d, jumps %d  hitches %d/%d/%d own/them/ball",
		st.ResimulatedFrames, depth, qs.Stalls+resyncs, qs.Jumps, m.hitch.Own, m.hitch.Other, m.hitch.Ball)
	if m.finished() {
		h.Frame = int32(m.o.frames) // the budget's states are played out
	}
	if m.sums.first >= 0 {
		h.Desync = fmt.Sprintf("frame %d: applied %08x, host %08x", m.sums.first, m.sums.firstMine, m.sums.firstTheirs)
	}
	return h
}

func (m *authClient) Report() report {
	if m.cl == nil {
		r := report{Role: "client", Failed: "pong: the host never answered"}
		if m.err != nil {
			r.Failed = m.err.Error()
		}
		return r
	}
	st := m.cl.Stats()
	qs, resyncs := m.cl.PlayoutStats()
	frames := m.played + 1 - m.from
	if m.o.frames > 0 {
		// The host sends states past the budget until the client leaves,
		// and a loaded machine's playout may jump onto one of them (seen:
		// 3612 of 3600): the match is the budget's frames.
		frames = min(frames, int32(m.o.frames))
	}
	r := report{
		Role:     sideName(m.side) + ", client",
		Frames:   frames,
		Compared: m.sums.compared,
		Desyncs:  m.sums.desyncs(),
		First:    m.sums.first,
		Checks:   "states applied, against the host's",
		Resim:    int64(st.ResimulatedFrames),
		LoopRTT:  st.RTT,
		NetRTT:   m.networkRTT(m.host),
		Path:     m.networkPath(),
		WebRTC:   m.rtc != nil,
		Score:    m.draw.Score,
		Wins:     m.draw.Wins,
		Players:  m.players(),
		Impair:   m.impairNote(),
	}
	r.Rollbacks = int64(st.Mismatches)
	end := m.end
	if end.IsZero() {
		end = m.now()
	}
	secs := end.Sub(m.start).Seconds()
	perSec := func(n uint64) float64 {
		if secs <= 0 {
			return 0
		}
		return float64(n) / secs
	}
	if secs > 0 {
		r.OutBPS, r.InBPS = perSec(st.Link.BytesSent), perSec(st.Link.BytesReceived)
	}
	r.Extra = []string{
		fmt.Sprintf("host states         %d applied, %d dropped (older than the newest, or no baseline); %d matched the prediction (%.1f/s), %d did not (%.1f/s)",
			st.StatesApplied, st.StatesDropped, st.Matches, perSec(st.Matches), st.Mismatches, perSec(st.Mismatches)),
		fmt.Sprintf("host's advice       inputs %.1f frames early, rate %+.1f%%", st.Depth, 100*st.Rate),
		fmt.Sprintf("playout             %d played, %d coasted, stalls %d, jumps %d, underruns %d, restarts %d, clock resyncs %d",
			qs.Applied, qs.Coasted, qs.Stalls, qs.Jumps, qs.Underruns, qs.Restarts, resyncs),
		"timeline            " + m.cl.TimelineStats().String(),
		fmt.Sprintf("hitches (drawn)     own paddle %d, host's paddle %d, ball %d, in %d drawn frames",
			m.hitch.Own, m.hitch.Other, m.hitch.Ball, m.hitch.Frames),
		fmt.Sprintf("own paddle          held to its top speed on %d drawn frames (catching up a correction)", m.heldFrames),
	}
	r.Extra = append(r.Extra, webrtcLine(m.rtc)...)
	switch {
	case !m.synced && m.err != nil:
		r.Err = m.err.Error()
	case !m.synced:
		r.Err = "never synchronized with the host"
	case m.err == errPeerLeft:
		if m.leftEarly(r.Frames) && !m.finished() {
			r.Left = m.left
		}
	case m.err != nil:
		r.Err = m.err.Error()
	}
	return r
}

// nameOr is the name of the player in slot, or what stands for it while
// no one holds it.
func (m *authClient) nameOr(slot int, none string) string {
	if n := m.names[slot]; n != "" {
		return n
	}
	return none
}

// title is the HUD's who plays whom, short (it shares its line with the
// score): the names the host's roster gives.
func (m *authClient) title() string {
	if m.side < 0 {
		return fmt.Sprintf("watching %s vs %s", m.nameOr(0, "?"), m.nameOr(1, "?"))
	}
	return fmt.Sprintf("%s (you) vs %s", m.names[m.side], m.nameOr(1-m.side, "no one yet"))
}

// players is the report's who played whom.
func (m *authClient) players() string {
	if m.side < 0 {
		return fmt.Sprintf("%s (left) vs %s (right), watched by you", m.nameOr(0, "?"), m.nameOr(1, "?"))
	}
	return fmt.Sprintf("%s (you, %s, client) vs %s", m.names[m.side], sideName(m.side), m.nameOr(1-m.side, "no one"))
}

func (m *authClient) finish(time.Duration) { m.end = m.now() }

func (m *authClient) Close() error { return m.closed(nil) }
