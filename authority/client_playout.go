package authority

import (
	"fmt"
	"math"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/pacing"
	"github.com/rollnet/rollnet/playout"
)

// The client's presentation, wired so that the obvious use is smooth: the
// fixed step runs through a playout.Timestep at the host's advised rate
// (Update), host states enter a pacing.Queue that applies at most one per
// step, and a pacing.Clock gives one render time per drawn frame for the
// entities a game draws in the past (PlayoutAt).

// defaultRenderDelay is the render clock's least delay a zero
// Render.Delay means, in frames: the paced queue may hold a state back a
// tick and coast a lost one, so the clock draws one frame further back
// than playout's default. The delay grows past it to what the stream's
// arrivals need (pacing.Arrival).
const defaultRenderDelay = 3.0

// A zero Queue.Depth means a depth sized to the host's stream as it goes:
// the stream's needed render delay (pacing.Arrival) and 3 frames more,
// between 4 and 10. The queue holds what it started with (playout's Start,
// 3) and one more for each state that came after its tick was coasted,
// and as many more as the client's lead shrank by (its steps slow while
// the states keep coming); the depth is the ceiling past which it drains,
// a jump. A host process beside a CPU hog stalls 50 ms (3 frames) at its
// 99th percentile and over 100 ms now and then, then sends the states it
// owed at once: under a ceiling of 4, 18 drains in 1200 frames of a
// two-process run, 0 under 8. A fixed 8 kept on a quiet machine the 6
// frames a client anchored ahead shed on its approach, 7.7 states held
// for good (TestTimeDilationApproach); sized to the stream they drain.
//
// The depth also follows the stream's longest wait for a state (a host
// whose process paused, then sent what it owed at once), remembered for
// peakHold states: the cushion a pause's coasts grew stays for the next
// pause instead of draining before it. Sized to the mean jitter alone, a
// host pausing 133 ms every 97 frames cost 12 stalls and 16 jumps in
// 1,200 frames (a stall to grow the cushion, jumps to drain it, again);
// held, 1 stall and no jump, with a ceiling of 10 to keep a 133 ms
// cushion (TestPlayoutKeepsTheCushionAHostPauseNeeds).
const (
	minQueueDepth = 4
	maxQueueDepth = 10
	queueSlack    = 3
	peakHold      = 600
)

// PlayoutConfig configures a client's presentation; the zero value of every
// field means playout's default.
type PlayoutConfig struct {
	// Queue paces host states: at most one applied per step (rule 7 of
	// the design). A zero Depth means one sized to the stream, 4 to 10
	// (see minQueueDepth), and a zero Capacity then 3×10.
	Queue playout.QueueConfig
	// Render is the interpolation clock; its Step defaults to the frame
	// period, its Delay to 3 frames.
	Render playout.ClockConfig
	// MaxScale bounds the time dilation the timestep applies; zero means
	// playout's (10%).
	MaxScale float64
}

// presentation is the client's timestep, paced queue, clock, and the
// state the queue applied last.
type presentation[S any] struct {
	ts     *playout.Timestep
	q      *pacing.Queue[S]
	clk    *pacing.Clock
	arr    *pacing.Arrival
	least  float64 // the configured render delay
	played S
	newest rollnet.Frame
	// Sums over the steps of Update since the client was made, for
	// ClientStats' Lead and Held: the present's lead on the newest host state, the
	// states the queue held after its tick.
	steps, leadSum, heldSum int64
	// ahead is how many steps of this Update follow the one running: the
	// queue's ticks to come, which a backlog is theirs to apply.
	ahead int
	sized bool // the queue's depth follows the stream
	// gapAt is when the newest state, of frame pushed, arrived (client
	// time), and gap the longest wait for a newer one, in frames, let go
	// by a frame every peakHold states.
	pushed rollnet.Frame
	gapAt  int64
	gap    float64
	period float64 // ns
	// applied says the last tick ran the queue (a tick at a hold with
	// nothing to play out does not): the render clock moves on with it.
	applied bool
}

func newPresentation[S any](cfg PlayoutConfig, period time.Duration) (presentation[S], error) {
	var p presentation[S]
	var err error
	if p.ts, err = playout.NewTimestep(playout.TimestepConfig{Step: period, MaxScale: cfg.MaxScale}); err != nil {
		return p, fmt.Errorf("%w: %w", errConfig, err)
	}
	p.sized = cfg.Queue.Depth == 0
	if p.sized {
		cfg.Queue.Depth = maxQueueDepth // for the Capacity's default
	}
	if p.q, err = pacing.NewQueue[S](cfg.Queue); err != nil {
		return p, fmt.Errorf("%w: %w", errConfig, err)
	}
	if p.sized {
		_ = p.q.SetDepth(minQueueDepth)
	}
	rc := cfg.Render
	if rc.Step == 0 {
		rc.Step = period
	}
	if rc.Delay == 0 {
		rc.Delay = defaultRenderDelay
	}
	if p.clk, err = pacing.NewClock(rc); err != nil {
		return p, fmt.Errorf("%w: %w", errConfig, err)
	}
	if p.arr, err = pacing.NewArrival(pacing.ArrivalConfig{Step: period}); err != nil {
		return p, fmt.Errorf("%w: %w", errConfig, err)
	}
	p.least = p.clk.Delay()
	p.period = float64(period)
	p.reset()
	return p, nil
}

func (p *presentation[S]) reset() {
	p.q.Reset()
	p.clk.Reset()
	p.arr.Reset()
	p.newest = rollnet.NoFrame
	p.pushed, p.gapAt, p.gap = rollnet.NoFrame, 0, 0
}

// push offers a verified host state, arrived at (client time), to the
// paced queue and the arrival monitor.
func (p *presentation[S]) push(f rollnet.Frame, s *S, at int64) {
	p.arr.Observe(int32(f), time.Duration(at))
	if f > p.pushed {
		if p.pushed != rollnet.NoFrame {
			p.gap = max(p.gap-1.0/peakHold, float64(at-p.gapAt)/p.period)
		}
		p.pushed, p.gapAt = f, at
	}
	if p.q.Push(int32(f), s) == pacing.TimelineLost {
		p.clk.Reset()
		p.arr.Reset()
		p.pushed, p.gap = f, 0
	}
}

// tick runs the queue for one step: an applied state is kept for drawing
// and observed by the clock.
func (p *presentation[S]) tick() {
	out, f, s := p.q.TickAhead(p.ahead)
	p.ahead = 0
	if out == pacing.Coast {
		return
	}
	p.played, p.newest = *s, rollnet.Frame(f)
	p.clk.Observe(f)
	if p.arr.WarmedUp() {
		if p.sized {
			n := int(math.Ceil(max(p.arr.NeededFrames(), p.gap))) + queueSlack
			_ = p.q.SetDepth(max(minQueueDepth, min(maxQueueDepth, n)))
		}
		// What the arrivals need behind the newest received, plus the
		// tick the queue may hold the newest back: the clock counts from
		// the newest applied.
		d := max(p.least, p.arr.NeededFrames()+1)
		if math.Abs(d-p.clk.Delay()) >= 0.25 {
			_ = p.clk.SetDelay(min(d, p.clk.Config().Resync/2)) // glides there by rate
		}
	}
}

// Update is the game's frame: dt of real time goes through the fixed
// timestep at the host's advised rate, and AdvanceFrame runs once per whole step
// (never a skipped or doubled step); then the render clock moves by dt.
// Add inputs with AddLocalInput before. It returns the steps run.
func (c *Client[S, I]) Update(dt time.Duration) (int, error) {
	_ = c.view.ts.SetScale(c.timeScale())
	n := c.view.ts.Advance(dt)
	c.fixed, c.updating = false, true
	defer func() { c.updating = false }()
	for i := range n {
		c.view.ahead = n - 1 - i
		if err := c.AdvanceFrame(); err != nil {
			return 0, err
		}
		if p := &c.view; c.started && c.stepped {
			p.steps++
			p.leadSum += int64(c.frame - c.newestHost)
			p.heldSum += int64(p.q.Len())
		}
	}
	if c.view.applied {
		c.view.clk.Advance(dt) // (held with nothing to play out, what is drawn stands still)
	}
	if c.lagcomp {
		if t, ok := c.RenderTime(); ok {
			c.DrawnAt(t)
		}
	}
	return n, nil
}

// Alpha is how far real time is into the next step, for drawing the
// predicted present blended between Previous() and State().
func (c *Client[S, I]) Alpha() float64 { return c.view.ts.Alpha() }

// Previous is the predicted state one step before State(), for blending;
// nil before two steps.
func (c *Client[S, I]) Previous() *S {
	s, err := c.ring.Peek(1)
	if err != nil {
		return nil
	}
	return s
}

// RenderTime is the render clock's time T, in host frames (fractional),
// for entities drawn in the past; ok is false until enough host states
// were played out.
func (c *Client[S, I]) RenderTime() (float64, bool) { return c.view.clk.T() }

// PlayoutAt returns the two host states around render time t (the one at
// floor(t) or the nearest before it, and the next one after it, among every
// host state received whole and still kept) and how far t lies between
// them; ok is false when none is held. The render clock is paced by the
// queue, so t moves steadily; the states come from every arrival, so a
// state the queue skipped or that arrived after its tick still shapes the
// curve. When t is past the newest, a and b are both the newest and alpha
// is 0. The pointers are valid until the next AdvanceFrame.
func (c *Client[S, I]) PlayoutAt(t float64) (a, b *S, alpha float64, ok bool) {
	newest := c.newestHost
	if newest == rollnet.NoFrame {
		return nil, nil, 0, false
	}
	fa := rollnet.NoFrame
	for g := min(rollnet.Frame(t), newest); g > newest-baselineWindow && g >= 0; g-- {
		if c.baseTags[int(g)%baselineWindow] == g {
			fa = g
			break
		}
	}
	if fa == rollnet.NoFrame {
		s := &c.base[int(newest)%baselineWindow]
		return s, s, 0, true
	}
	a = &c.base[int(fa)%baselineWindow]
	for g := fa + 1; g <= newest; g++ {
		if c.baseTags[int(g)%baselineWindow] == g {
			b = &c.base[int(g)%baselineWindow]
			return a, b, max(0, min(1, (t-float64(fa))/float64(g-fa))), true
		}
	}
	return a, a, 0, true
}

// Played is the host state the paced queue applied last (the newest host
// state played out) and its frame; ok is false before the first.
func (c *Client[S, I]) Played() (s *S, frame rollnet.Frame, ok bool) {
	p := &c.view
	if p.newest == rollnet.NoFrame {
		return nil, rollnet.NoFrame, false
	}
	return &p.played, p.newest, true
}

// PlayoutStats are the paced queue's counts (stalls, jumps, coasts,
// restarts) and the render clock's resyncs.
func (c *Client[S, I]) PlayoutStats() (playout.QueueStats, int64) {
	return c.view.q.Stats(), c.view.clk.Resyncs()
}
