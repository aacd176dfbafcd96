package main

// The catch-up figures: how long a fresh process takes to catch up on a
// long two-player match over loopback WebRTC (a late spectator, and a
// player that dropped and comes back on a new transport), and what the
// player feeding it feels meanwhile (its tick's duration, before and
// during the catch-up, in the same run).
//
// The match runs in two phases. First the players play Frames frames
// fast (one goroutine drives both at FastRate ticks a second, no
// real-time pacing), so that the archive holds ten minutes of match in
// seconds. Not faster: every AdvanceFrame sends a datagram, and a loop
// that spins floods the association: SCTP's congestion window fills, the
// transport skips what exceeds Config.SendThreshold, and the sessions'
// sequence numbers run past the plausibility window between two quality
// replies, so the players disconnect within a second (seen at 5,000 calls
// a second; 4,000 ticks a second held). Then each
// player runs its own game loop at 60 Hz, and the late peers come one
// after the other, each after a quiet window that gives the baseline of
// the feeding player's tick: a fresh spectator (its own transport, a new
// id, added by its host), then, when Rejoin is set, a fresh session of
// the second player with its rejoin token on a fresh transport, after
// its old transport closed. Every late peer runs a game loop at 60 Hz
// that draws nothing while it catches up: one AdvanceFrame a tick, which
// replays up to SpectatorConfig.FastForward frames (the rejoiner's own
// session replays what has arrived).

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/bits"
	"net/http/httptest"
	"slices"
	"strings"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/p2p"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/signaling"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/webrtc"
)

// catchConfig says what one catch-up run measures.
type catchConfig struct {
	// Frames is how many frames the players confirm, unpaced, before the
	// late peers come.
	Frames int
	// Quiet is how long the players play at 60 Hz before each late peer
	// starts: the window whose ticks are the baseline.
	Quiet time.Duration
	// Rejoin adds the rejoiner after the spectator.
	Rejoin bool
	// Live is the most frames a late spectator may have waiting
	// (Spectator.Behind) and count as live.
	Live int
	// CatchUp and FastForward are the spectator's SpectatorConfig.CatchUp
	// and FastForward: the most frames one AdvanceFrame replays a little
	// behind, and far behind (0: the session's defaults).
	CatchUp, FastForward int
	// FastRate is the players' ticks a second in the first phase.
	FastRate int
	// SendThreshold is every transport's webrtc.Tuning.SendThreshold (0:
	// its default).
	SendThreshold int
	// Timeout bounds the whole run.
	Timeout time.Duration
}

// catchFigure is what one late peer measured (durations in nanoseconds
// in the JSON).
type catchFigure struct {
	Kind     string        `json:"kind"`         // spectator or rejoiner
	Frames   int           `json:"frames"`       // the match's frame when it started: what it replayed
	Connect  time.Duration `json:"connect"`      // from its start to the data channel with the feeding player open
	Replayed time.Duration `json:"replayed"`     // from its start to its frame reaching Frames
	Live     time.Duration `json:"live"`         // from its start to live
	Rate     float64       `json:"frames_per_s"` // Frames / Replayed
	Quiet    tickTimes     `json:"quiet"`        // the feeding player's ticks before it started
	Busy     tickTimes     `json:"busy"`         // and while it caught up
	Compared int           `json:"compared"`     // its confirmed checksums compared with the feeding player's
	R        int           `json:"r,omitempty"`  // the rejoiner's agreed frame R
	// Sent and Skipped count the feeding player's datagrams while it
	// caught up: handed to the data channel, and skipped by the transport
	// (more than webrtc.Tuning.SendThreshold bytes buffered).
	Sent    uint64 `json:"sent"`
	Skipped uint64 `json:"skipped"`
}

// tickTimes summarizes the durations of a player's ticks (AddLocalInput
// and AdvanceFrame, or Poll) in a window.
type tickTimes struct {
	N       int           `json:"n"`
	Refused int           `json:"refused"` // ticks whose AdvanceFrame was refused: the player's game stood still
	P50     time.Duration `json:"p50"`
	P99     time.Duration `json:"p99"`
	Max     time.Duration `json:"max"`
}

// catchReport is a run's figures.
type catchReport struct {
	Config  catchConfig   `json:"config"`
	Played  time.Duration `json:"played"` // the unpaced phase's wall time
	Figures []catchFigure `json:"figures"`
	// Disagree is the check's failure: two peers' checksums of a frame
	// differ, or a session detected a desync.
	Disagree string `json:"disagree,omitempty"`
	// Incomplete says what ended the run before every figure was
	// measured (a bound that a loaded machine outran, a link that
	// collapsed): reported, not a failure of the check.
	Incomplete string `json:"incomplete,omitempty"`
}

// errDisagree marks the catch-up's errors that are the check failing:
// checksums that differ, or a desync a session detected. Every other
// error is the run ending early.
var errDisagree = errors.New("checksums disagree")

// coverage says which frames Compared covers.
func (f catchFigure) coverage() string {
	if f.Kind == "rejoiner" {
		return " (from R on)"
	}
	return fmt.Sprintf(" (of the %s replayed)", groupDigits(f.Frames))
}

func summarize(d []time.Duration) tickTimes {
	if len(d) == 0 {
		return tickTimes{}
	}
	s := slices.Clone(d)
	slices.Sort(s)
	q := func(x float64) time.Duration { return s[int(x*float64(len(s)-1)+0.5)] }
	return tickTimes{N: len(s), P50: q(0.5), P99: q(0.99), Max: s[len(s)-1]}
}

// catchInput is player's input for frame f: the same on every run and
// every peer, changing every 10 frames or so, like a player's.
func catchInput(player int, f rollnet.Frame) uint16 {
	x := uint64(int64(f)/10)*0x9e3779b97f4a7c15 ^ uint64(player+1)*0xbf58476d1ce4e5b9
	x ^= x >> 31
	x *= 0x94d049bb133111eb
	return uint16(x >> 40)
}

// defaultFastForward is SpectatorConfig.FastForward's default.
const defaultFastForward = 2048

const (
	catchDelay    = 2
	catchTickRate = 60
	// rejoinCompare is how many frames from R the rejoiner plays before
	// its checksums are compared with its sponsor's, waiting at most
	// rejoinWait.
	rejoinCompare = catchTickRate
	rejoinWait    = 20 * time.Second
)

// catchPlayer is one player's peer: its session, its transport, the
// checksum of every frame it confirmed, and its ticks at 60 Hz.
type catchPlayer struct {
	tr    webrtc.Transport
	p2p   *p2p.Session[world, uint16]
	index int
	cfg   p2p.Config[uint16]

	sums    []uint32 // by frame; valid where have is set
	have    []bool
	checked rollnet.Frame // newest frame whose checksum is in sums

	ticks []tickSample // at 60 Hz
	cmds  chan func()
	stop  chan struct{}
	done  chan struct{}
	err   error
	live  time.Time // a rejoiner: when AdvanceFrame first succeeded

	target  rollnet.Frame // a rejoiner: the match's frame when it started
	reached time.Time     // when its frame reached target

	mayLeave bool // the other player may disconnect (it is the one that rejoins)
}

type tickSample struct {
	at      time.Time
	d       time.Duration
	refused bool
}

func newCatchPlayer(tr webrtc.Transport, index int, cfg p2p.Config[uint16], frames int) (*catchPlayer, error) {
	p2p, err := p2p.New[world](cfg, tr, simulate)
	if err != nil {
		return nil, err
	}
	return &catchPlayer{tr: tr, p2p: p2p, index: index, cfg: cfg,
		sums: make([]uint32, frames), have: make([]bool, frames), checked: -1,
		ticks: make([]tickSample, 0, 1<<16)}, nil
}

// step adds the local input and advances a frame; it returns whether a
// frame was simulated.
func (pl *catchPlayer) step() (bool, error) {
	f := pl.p2p.Frame() + catchDelay
	if err := pl.p2p.AddLocalInput(pl.index, catchInput(pl.index, f)); err != nil {
		return false, err
	}
	err := pl.p2p.AdvanceFrame()
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, p2p.ErrNotSynchronized), errors.Is(err, session.ErrPredictionLimit):
		return false, nil // ErrRejoining among them
	}
	return false, err
}

// record keeps the checksums of the frames newly confirmed and still held.
// Call it after a frame was simulated: inputs that arrived in a refused
// AdvanceFrame confirm frames whose rollback comes with the next Step.
func (pl *catchPlayer) record() {
	c := min(pl.p2p.ConfirmedFrame(), pl.p2p.Frame()-1)
	for f := pl.checked + 1; f <= c && int(f) < len(pl.sums); f++ {
		if sum, err := pl.p2p.ChecksumAt(f); err == nil {
			pl.sums[f], pl.have[f] = sum, true
		}
		pl.checked = f
	}
}

// events fails on what must not happen in the match.
func (pl *catchPlayer) events(buf []rollnet.Event) ([]rollnet.Event, error) {
	buf = pl.p2p.Events(buf[:0])
	for _, e := range buf {
		switch e.Kind {
		case rollnet.EventDesyncDetected:
			return buf, fmt.Errorf("player %d: %w: %v", pl.index, errDisagree, e)
		case rollnet.EventSyncFailed:
			return buf, fmt.Errorf("player %d: %v", pl.index, e)
		case rollnet.EventPlayerDisconnected:
			// Frozen inputs from here on: the players would part without
			// a desync to say so (a link that collapsed under load).
			if !pl.mayLeave {
				return buf, fmt.Errorf("player %d at frame %d: %v", pl.index, pl.p2p.Frame(), e)
			}
		}
	}
	return buf, nil
}

// loop runs the player's game loop at 60 Hz until stop, timing each tick,
// running cmds between ticks.
func (pl *catchPlayer) loop(ctx context.Context) {
	defer close(pl.done)
	tick := time.NewTicker(time.Second / catchTickRate)
	defer tick.Stop()
	events := make([]rollnet.Event, 0, 256)
	for {
		select {
		case <-ctx.Done():
			pl.err = fmt.Errorf("player %d at frame %d: %w", pl.index, pl.p2p.Frame(), ctx.Err())
			return
		case <-pl.stop:
			return
		case f := <-pl.cmds:
			f()
			continue
		case <-tick.C:
		}
		t0 := time.Now()
		var (
			stepped, waited bool
			err             error
		)
		if pl.p2p.WaitRecommendation() > 0 {
			err, waited = pl.p2p.Poll(), true
		} else {
			stepped, err = pl.step()
		}
		d := time.Since(t0)
		if len(pl.ticks) < cap(pl.ticks) {
			pl.ticks = append(pl.ticks, tickSample{t0, d, !stepped && !waited})
		}
		if err == nil {
			events, err = pl.events(events)
		}
		if err != nil {
			pl.err = fmt.Errorf("player %d at frame %d: %w", pl.index, pl.p2p.Frame(), err)
			return
		}
		if pl.target > 0 && pl.reached.IsZero() && pl.p2p.Frame() >= pl.target {
			pl.reached = time.Now()
		}
		if stepped {
			if pl.live.IsZero() {
				pl.live = time.Now()
			}
			pl.record()
		}
	}
}

func (pl *catchPlayer) start(ctx context.Context) {
	pl.cmds, pl.stop, pl.done = make(chan func()), make(chan struct{}), make(chan struct{})
	go pl.loop(ctx)
}

// halt stops the game loop, if it runs, and returns its error.
func (pl *catchPlayer) halt() error {
	if pl.stop == nil {
		return pl.err
	}
	close(pl.stop)
	<-pl.done
	pl.stop = nil
	return pl.err
}

// do runs f in the player's game loop, between ticks.
func (pl *catchPlayer) do(ctx context.Context, f func()) error {
	ran := make(chan struct{})
	select {
	case pl.cmds <- func() { f(); close(ran) }:
	case <-pl.done:
		return fmt.Errorf("player %d stopped: %w", pl.index, pl.err)
	case <-ctx.Done():
		return ctx.Err()
	}
	<-ran
	return nil
}

// ticksIn summarizes the ticks that started in [from, to).
func (pl *catchPlayer) ticksIn(from, to time.Time) tickTimes {
	var d []time.Duration
	refused := 0
	for _, t := range pl.ticks {
		if !t.at.Before(from) && t.at.Before(to) {
			d = append(d, t.d)
			if t.refused {
				refused++
			}
		}
	}
	tt := summarize(d)
	tt.Refused = refused
	return tt
}

// agree checks that every frame both hold a checksum of agrees, from
// frame from on, and returns how many were compared.
func agree(a, b []uint32, ha, hb []bool, from int) (int, error) {
	n := 0
	for f := max(from, 0); f < len(a) && f < len(b); f++ {
		if !ha[f] || !hb[f] {
			continue
		}
		if a[f] != b[f] {
			return n, fmt.Errorf("%w: frame %d: checksum %08x against %08x", errDisagree, f, a[f], b[f])
		}
		n++
	}
	return n, nil
}

// runCatchUp plays the match and measures the late peers.
func runCatchUp(cfg catchConfig) (rep catchReport, err error) {
	rep.Config = cfg
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout)
	defer cancel()
	srv, err := signaling.NewServer(signaling.ServerConfig{})
	if err != nil {
		return rep, err
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(hs.URL, "http") + "/room/catchup"

	var closers []func() error
	defer func() {
		for _, c := range slices.Backward(closers) {
			if cerr := c(); cerr != nil && err == nil {
				err = cerr
			}
		}
	}()
	dial := func() (webrtc.Transport, error) {
		tr, err := webrtc.Dial(ctx, url, webrtc.Config{LoopbackOnly: true, Tuning: webrtc.Tuning{SendThreshold: cfg.SendThreshold}})
		if err != nil {
			return nil, err
		}
		closers = append(closers, tr.Close)
		return tr, nil
	}
	trs := make([]webrtc.Transport, 2)
	for i := range trs {
		if trs[i], err = dial(); err != nil {
			return rep, err
		}
	}
	for _, tr := range trs {
		if _, err := tr.WaitPeers(ctx, 1); err != nil {
			return rep, err
		}
	}
	// The lower id plays player 0, on both sides.
	if trs[0].Local() > trs[1].Local() {
		trs[0], trs[1] = trs[1], trs[0]
	}
	// Room for the unpaced frames and the paced phase.
	total := cfg.Frames + int(cfg.Timeout.Seconds()+1)*catchTickRate
	players := make([]*catchPlayer, 2)
	for i := range players {
		remote := []transport.Peer{"", ""}
		remote[1-i] = trs[1-i].Local()
		pc := p2p.Config[uint16]{
			Session:          session.Config[uint16]{Players: 2, InputDelay: catchDelay, Capacity: 32},
			Remote:           remote,
			SpectatorArchive: total,
		}
		if players[i], err = newCatchPlayer(trs[i], i, pc, total); err != nil {
			return rep, err
		}
		closers = append(closers, players[i].p2p.Close)
	}

	// Phase 1: fast, one goroutine for both.
	began := time.Now()
	events := make([]rollnet.Event, 0, 256)
	fast := time.NewTicker(time.Second / time.Duration(cfg.FastRate))
	defer fast.Stop()
	for min(players[0].p2p.ConfirmedFrame(), players[1].p2p.ConfirmedFrame()) < rollnet.Frame(cfg.Frames) {
		if ctx.Err() != nil {
			return rep, fmt.Errorf("unpaced play at frames %d and %d: %w", players[0].p2p.Frame(), players[1].p2p.Frame(), ctx.Err())
		}
		for _, pl := range players {
			stepped, err := pl.step()
			if err != nil {
				return rep, err
			}
			if events, err = pl.events(events); err != nil {
				return rep, err
			}
			if stepped {
				pl.record()
			}
		}
		select {
		case <-fast.C:
		case <-ctx.Done():
		}
	}
	rep.Played = time.Since(began)

	// Phase 2: each player at 60 Hz.
	for _, pl := range players {
		pl.start(ctx)
	}
	var back *catchPlayer
	defer func() {
		for _, pl := range []*catchPlayer{players[0], players[1], back} {
			if pl == nil {
				continue
			}
			if herr := pl.halt(); herr != nil && err == nil {
				err = herr
			}
		}
	}()

	if !sleepCtx(ctx, cfg.Quiet) {
		return rep, ctx.Err()
	}
	fig, err := catchSpectator(ctx, cfg, players[0], dial, total)
	if fig.Connect > 0 || err == nil {
		rep.Figures = append(rep.Figures, fig)
	}
	if err != nil {
		return rep, fmt.Errorf("spectator: %w", err)
	}

	if cfg.Rejoin {
		if !sleepCtx(ctx, cfg.Quiet) {
			return rep, ctx.Err()
		}
		fig, back, err = catchRejoiner(ctx, cfg, players, dial, total)
		if back != nil {
			closers = append(closers, back.p2p.Close)
		}
		if fig.Connect > 0 || err == nil {
			rep.Figures = append(rep.Figures, fig)
		}
		if err != nil {
			return rep, fmt.Errorf("rejoiner: %w", err)
		}
	}

	// Every frame any two players confirmed agrees.
	for _, pl := range []*catchPlayer{players[0], players[1], back} {
		if pl != nil {
			if err := pl.halt(); err != nil {
				return rep, err
			}
		}
	}
	for _, pl := range []*catchPlayer{players[1], back} {
		if pl == nil {
			continue
		}
		if _, err := agree(players[0].sums, pl.sums, players[0].have, pl.have, 0); err != nil {
			return rep, fmt.Errorf("players disagree: %w", err)
		}
	}
	return rep, nil
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// catchSpectator starts a fresh spectator of host's session and measures
// it until it is live.
func catchSpectator(ctx context.Context, cfg catchConfig, host *catchPlayer, dial func() (webrtc.Transport, error), total int) (catchFigure, error) {
	fig := catchFigure{Kind: "spectator"}
	before := host.tr.Stats()
	start := time.Now()
	tr, err := dial()
	if err != nil {
		return fig, err
	}
	hostID := host.tr.Local()
	if err := waitPeer(ctx, tr, hostID); err != nil {
		return fig, err
	}
	fig.Connect = time.Since(start)
	var from rollnet.Frame
	var addErr error
	if err := host.do(ctx, func() {
		from = host.p2p.ConfirmedFrame()
		addErr = host.p2p.AddSpectator(tr.Local())
	}); err != nil {
		return fig, err
	}
	if addErr != nil {
		return fig, addErr
	}
	// Room for the checksum of every frame one AdvanceFrame replays.
	capacity := max(16, 1<<bits.Len(uint(max(cfg.CatchUp, cmp.Or(cfg.FastForward, defaultFastForward)))))
	spec, err := p2p.NewSpectator[world](p2p.SpectatorConfig{
		Players: 2, InputDelay: catchDelay, Capacity: capacity, Host: hostID,
		CatchUp: cfg.CatchUp, FastForward: cfg.FastForward,
	}, tr, simulate)
	if err != nil {
		return fig, err
	}
	defer spec.Close()
	sums, have := make([]uint32, total), make([]bool, total)
	checked := rollnet.Frame(-1)
	tick := time.NewTicker(time.Second / catchTickRate)
	defer tick.Stop()
	events := make([]rollnet.Event, 0, 256)
	var live time.Time
	for live.IsZero() {
		select {
		case <-ctx.Done():
			return fig, fmt.Errorf("at frame %d of %d, %d behind: %w", spec.Frame(), from, spec.Behind(), ctx.Err())
		case <-tick.C:
		}
		err := spec.AdvanceFrame()
		if err != nil && !errors.Is(err, p2p.ErrNotSynchronized) && !errors.Is(err, session.ErrPredictionLimit) {
			return fig, err
		}
		events = spec.Events(events[:0])
		for _, e := range events {
			switch e.Kind {
			case rollnet.EventDesyncDetected:
				return fig, fmt.Errorf("%w: %v", errDisagree, e)
			case rollnet.EventDisconnected, rollnet.EventSyncFailed:
				return fig, fmt.Errorf("%v", e)
			}
		}
		for f := checked + 1; f < spec.Frame() && int(f) < total; f++ {
			if sum, err := spec.ChecksumAt(f); err == nil {
				sums[f], have[f] = sum, true
			}
			checked = f
		}
		if spec.Frame() > from && fig.Replayed == 0 {
			fig.Replayed = time.Since(start)
		}
		if spec.Frame() > from && spec.Behind() <= cfg.Live {
			live = time.Now()
		}
	}
	fig.Live = live.Sub(start)
	fig.Frames = int(from)
	fig.Rate = float64(from) / fig.Replayed.Seconds()
	after := host.tr.Stats()
	fig.Sent, fig.Skipped = after.PacketsSent-before.PacketsSent, after.SendsSkipped-before.SendsSkipped
	// The host's view of the same frames, read between its ticks.
	var hostSums []uint32
	var hostHave []bool
	if err := host.do(ctx, func() {
		hostSums, hostHave = slices.Clone(host.sums), slices.Clone(host.have)
	}); err != nil {
		return fig, err
	}
	if fig.Compared, err = agree(sums, hostSums, have, hostHave, 0); err != nil {
		return fig, err
	}
	if err := host.do(ctx, func() {
		fig.Quiet = host.ticksIn(start.Add(-cfg.Quiet), start)
		fig.Busy = host.ticksIn(start, live)
	}); err != nil {
		return fig, err
	}
	return fig, nil
}

// waitPeer waits until tr's channel with peer is open.
func waitPeer(ctx context.Context, tr webrtc.Transport, peer transport.Peer) error {
	for n := 1; ; n++ {
		peers, err := tr.WaitPeers(ctx, n)
		if err != nil {
			return err
		}
		if slices.Contains(peers, peer) {
			return nil
		}
	}
}

// catchRejoiner closes the second player's transport and session, starts
// a fresh session with its rejoin token on a fresh transport, and
// measures it until it plays again. It returns the new player (running)
// once it started.
func catchRejoiner(ctx context.Context, cfg catchConfig, players []*catchPlayer, dial func() (webrtc.Transport, error), total int) (catchFigure, *catchPlayer, error) {
	fig := catchFigure{Kind: "rejoiner"}
	sponsor, gone := players[0], players[1]
	var (
		tok rollnet.RejoinToken
		ok  bool
	)
	if err := gone.do(ctx, func() { tok, ok = gone.p2p.RejoinToken() }); err != nil {
		return fig, nil, err
	}
	if err := sponsor.do(ctx, func() { sponsor.mayLeave = true }); err != nil {
		return fig, nil, err
	}
	if !ok {
		return fig, nil, errors.New("no rejoin token")
	}
	if err := gone.halt(); err != nil {
		return fig, nil, err
	}
	_ = gone.p2p.Close()
	if err := gone.tr.Close(); err != nil {
		return fig, nil, err
	}
	var from rollnet.Frame
	before := sponsor.tr.Stats()
	start := time.Now()
	if err := sponsor.do(ctx, func() { from = sponsor.p2p.Frame() }); err != nil {
		return fig, nil, err
	}
	tr, err := dial()
	if err != nil {
		return fig, nil, err
	}
	if err := waitPeer(ctx, tr, sponsor.tr.Local()); err != nil {
		return fig, nil, err
	}
	fig.Connect = time.Since(start)
	pc := gone.cfg
	pc.Rejoin = tok
	back, err := newCatchPlayer(tr, gone.index, pc, total)
	if err != nil {
		return fig, nil, err
	}
	back.target = from
	back.start(ctx)
	var live, reached time.Time
	var st p2p.RejoinStats
	for live.IsZero() {
		if !sleepCtx(ctx, 10*time.Millisecond) {
			return fig, back, ctx.Err()
		}
		if err := back.do(ctx, func() { live, reached, st = back.live, back.reached, back.p2p.RejoinStats() }); err != nil {
			return fig, back, err
		}
	}
	fig.Live = live.Sub(start)
	after := sponsor.tr.Stats()
	fig.Sent, fig.Skipped = after.PacketsSent-before.PacketsSent, after.SendsSkipped-before.SendsSkipped
	if !reached.IsZero() {
		fig.Replayed = reached.Sub(start)
	}
	fig.Frames = int(from)
	fig.Rate = float64(from) / fig.Replayed.Seconds()
	fig.R = int(st.Frame)
	// Play until the rejoiner confirmed rejoinCompare frames from R (or
	// rejoinWait passed: a loaded machine plays slower), then both views
	// of every frame from R on.
	waitUntil := time.Now().Add(rejoinWait)
	for {
		var checked rollnet.Frame
		if err := back.do(ctx, func() { checked = back.checked }); err != nil {
			return fig, back, err
		}
		if int(checked) >= fig.R+rejoinCompare || time.Now().After(waitUntil) {
			break
		}
		if !sleepCtx(ctx, 20*time.Millisecond) {
			return fig, back, fmt.Errorf("waiting for %d frames confirmed from R %d (at %d): %w", rejoinCompare, fig.R, checked, ctx.Err())
		}
	}
	var a, b []uint32
	var ha, hb []bool
	if err := sponsor.do(ctx, func() {
		a, ha = slices.Clone(sponsor.sums), slices.Clone(sponsor.have)
		fig.Quiet = sponsor.ticksIn(start.Add(-cfg.Quiet), start)
		fig.Busy = sponsor.ticksIn(start, live)
	}); err != nil {
		return fig, back, err
	}
	if err := back.do(ctx, func() { b, hb = slices.Clone(back.sums), slices.Clone(back.have) }); err != nil {
		return fig, back, err
	}
	if fig.Compared, err = agree(a, b, ha, hb, fig.R); err != nil {
		return fig, back, err
	}
	if fig.Compared == 0 {
		return fig, back, fmt.Errorf("no frame from R %d confirmed by both within %v", fig.R, rejoinWait)
	}
	return fig, back, nil
}

func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
