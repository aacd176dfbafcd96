package authority

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/rollnet/rollnet/transport/local"
)

// pausingHost is a dedicated host's loop beside busy loops: every
// every-th frame its process is off the CPU for pause, and on waking it
// runs every frame it owes at once (its timestep on the clock), sending a
// state for each.
type pausingHost struct {
	c      *cluster
	next   time.Time
	last   time.Time
	acc    time.Duration
	every  int
	pause  time.Duration
	frames int
}

func (l *pausingHost) Next() (time.Time, bool) { return l.next, true }

func (l *pausingHost) Tick() {
	now := l.c.clock.Now()
	if l.last.IsZero() {
		l.last = now
	}
	l.acc += now.Sub(l.last)
	l.last = now
	l.next = l.next.Add(tick)
	for ; l.acc >= tick; l.acc -= tick {
		l.c.hostTick()
		if l.frames++; l.frames%l.every == 0 {
			l.next = now.Add(l.pause)
		}
	}
}

// A host that pauses now and then (tens of ms, its process beside busy
// loops) and catches up at once: its client's playout coasts through a
// pause longer than its cushion and plays the late states after (a
// stall), which leaves the cushion that pause needed. The queue's depth
// remembers the stream's longest wait, so the cushion stays for the next
// pauses: after the first 5 s (the first pauses), at most one stall in
// twelve pauses (the cushion drifts by what the client's lead gives back)
// and no jump. With the depth sized to the mean jitter alone it drained
// between pauses: a host pausing 133 ms every 97 frames cost 12 stalls and
// 16 jumps in those 1,200 frames, one pausing 83 ms a jump.
func TestPlayoutKeepsTheCushionAHostPauseNeeds(t *testing.T) {
	for _, pause := range []time.Duration{50, 83, 100, 133} {
		pause *= time.Millisecond
		c := newCluster(t, clusterOpts{seed: 23, players: 1, link: local.Link{Latency: 2 * time.Millisecond}})
		c.loops[0] = &pausingHost{c: c, next: c.hnext, every: 97, pause: pause}
		a := c.add("a", ClientConfig{}, mash(1, 3))
		c.loops[1] = &hoggedClient{c: c, nd: a, next: c.clock.Now(), every: 1 << 30}
		c.run(5 * time.Second)
		q0 := a.c.view.q.Stats()
		c.run(20 * time.Second) // 1,200 frames, 12 pauses
		q := a.c.view.q.Stats()
		t.Logf("pause %v: in the first 5 s %d stalls, %d jumps; then %d stalls, %d coasts, %d jumps in 1,200 frames, %.1f states held",
			pause, q0.Stalls, q0.Jumps, q.Stalls-q0.Stalls, q.Coasted-q0.Coasted, q.Jumps-q0.Jumps, a.c.Stats().Held)
		assert.LessOrEqual(t, q.Stalls-q0.Stalls, int64(1), "%v: stalls after the first pauses", pause)
		assert.Zero(t, q.Jumps-q0.Jumps, "%v: jumps after the first pauses", pause)
	}
}
