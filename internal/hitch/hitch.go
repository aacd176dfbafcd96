package hitch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/rollnet/rollnet/internal/pacing"
	"github.com/rollnet/rollnet/playout"
)

// Config is one scenario. The zero value of every field means its
// documented default (the issue's: 45 ± 20 ms, 5% loss, a 60 Hz step drawn
// at 144 Hz, 720 frames measured).
type Config struct {
	// Latency is the link's mean one-way delay. Zero means 45 ms.
	Latency time.Duration
	// Jitter spreads each delivery uniformly over Latency ± Jitter. Zero
	// means 20 ms; negative means none.
	Jitter time.Duration
	// Loss is the fraction of states lost. Zero means 5%; negative means
	// none.
	Loss float64
	// Step is the host's and the client's fixed step. Zero means 60 Hz.
	Step time.Duration
	// Draw is the client's and the host's frame time. Zero means 144 Hz.
	Draw time.Duration
	// Frames is how many drawn frames are measured. Zero means 720.
	Frames int
	// Warmup is how many drawn frames run before measuring. Zero means 2 s.
	Warmup int
	// Dilation is the amplitude of the client's time dilation, which swings
	// between 1-Dilation and 1+Dilation every four seconds. Zero means 3%;
	// negative means none.
	Dilation float64
	// Unpaced applies host states the moment they arrive and draws them at
	// the local alpha, the way the seeds found jerky.
	Unpaced bool
	// Seed seeds the link.
	Seed uint64
}

// View is one entity's drawn displacement per measured frame.
type View struct {
	Name    string
	Moves   []float64 // displacement on each measured frame
	Typical float64   // the median displacement
	Hitches int       // frames outside [0.5, 1.5] × Typical
	Worst   float64   // the largest |move/Typical - 1|
}

// Views of a Result.
const (
	Predicted = iota // the client's own predicted entity
	Remote           // a host entity drawn on the client
	Host             // the host's own entity, drawn by the host
	NumViews
)

// Result holds every view of one run, and the playout's counts.
type Result struct {
	Views [NumViews]View
	Queue playout.QueueStats
}

const speed = 1.0 // units per step, every entity

type packet struct {
	at    time.Duration
	frame int32
	x     float64 // the host entity's position at frame
}

// Run plays one scenario and measures it.
func Run(cfg Config) (Result, error) {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&cfg.Latency, 45*time.Millisecond)
	def(&cfg.Jitter, 20*time.Millisecond)
	def(&cfg.Step, playout.DefaultStep)
	def(&cfg.Draw, time.Second/144)
	cfg.Jitter = max(cfg.Jitter, 0)
	if cfg.Loss == 0 {
		cfg.Loss = 0.05
	}
	cfg.Loss = max(cfg.Loss, 0)
	if cfg.Dilation == 0 {
		cfg.Dilation = 0.03
	}
	cfg.Dilation = max(cfg.Dilation, 0)
	if cfg.Frames == 0 {
		cfg.Frames = 720
	}
	if cfg.Warmup == 0 {
		cfg.Warmup = int(2 * time.Second / cfg.Draw)
	}
	if cfg.Latency < cfg.Jitter || cfg.Frames < 2 {
		return Result{}, fmt.Errorf("hitch: jitter %v above latency %v, or %d frames", cfg.Jitter, cfg.Latency, cfg.Frames)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x7177))

	hostTS, err := playout.NewTimestep(playout.TimestepConfig{Step: cfg.Step})
	if err != nil {
		return Result{}, err
	}
	clientTS, err := playout.NewTimestep(playout.TimestepConfig{Step: cfg.Step})
	if err != nil {
		return Result{}, err
	}
	queue, err := pacing.NewQueue[float64](playout.QueueConfig{})
	if err != nil {
		return Result{}, err
	}
	clock, err := pacing.NewClock(playout.ClockConfig{Step: cfg.Step})
	if err != nil {
		return Result{}, err
	}
	hist, err := pacing.NewHistory[float64](pacing.HistoryConfig{})
	if err != nil {
		return Result{}, err
	}

	var (
		hostFrame          int32
		hostPrev, hostCur  float64 // the host's own entity
		me, mePrev         float64 // the client's predicted entity
		wire, pending      []packet
		arrPrev, arrCur    float64 // remote entity, unpaced
		remoteX            float64 // the client's world's copy of it, paced
		last               [NumViews]float64
		res                Result
		names              = [NumViews]string{"client's predicted entity", "host entity drawn on the client", "host's own entity"}
		total              = cfg.Warmup + cfg.Frames
		hostPhase          = cfg.Draw / 3 // the two machines' frames are not in step
		hostNext, clientAt time.Duration
	)
	for i := range res.Views {
		res.Views[i].Name = names[i]
	}
	hostNext = hostPhase
	for frame := 0; frame <= total; frame++ {
		clientAt = time.Duration(frame) * cfg.Draw
		// The host's frames up to now: step, send, draw.
		for hostNext <= clientAt {
			for range hostTS.Advance(cfg.Draw) {
				hostFrame++
				hostPrev, hostCur = hostCur, hostCur+speed
				if rng.Float64() >= cfg.Loss {
					d := cfg.Latency + time.Duration((rng.Float64()*2-1)*float64(cfg.Jitter))
					wire = append(wire, packet{at: hostNext + d, frame: hostFrame, x: hostCur})
				}
			}
			if frame > cfg.Warmup {
				last[Host] = record(&res.Views[Host], last[Host], hostPrev+(hostCur-hostPrev)*hostTS.Alpha())
			} else {
				last[Host] = hostPrev + (hostCur-hostPrev)*hostTS.Alpha()
			}
			hostNext += cfg.Draw
		}

		// The client's frame. Dilation as a host would advise it: a few
		// percent either way, changing every two seconds.
		if err := clientTS.SetScale(1 + cfg.Dilation*math.Sin(float64(clientAt)/float64(2*time.Second)*math.Pi)); err != nil {
			return Result{}, err
		}
		// 1. Update: each step opens with what arrived before it.
		for range clientTS.Advance(cfg.Draw) {
			mePrev, me = me, me+speed
			if cfg.Unpaced {
				continue
			}
			for _, p := range pending {
				queue.Push(p.frame, &p.x)
			}
			pending = pending[:0]
			out, f, s := queue.Tick()
			switch out {
			case pacing.Coast:
				if !queue.Started() {
					continue
				}
				remoteX += speed // coast along its velocity
			case pacing.Restart:
				hist.Reset()
				clock.Reset()
				remoteX = *s
			case pacing.Apply:
				remoteX = *s
			}
			hist.Put(f, &remoteX)
			clock.ObserveAt(f, clientTS.Pending())
		}
		// 2. The network delivers, between update and draw.
		slices.SortFunc(wire, func(a, b packet) int { return int(a.at - b.at) })
		n := 0
		for n < len(wire) && wire[n].at <= clientAt {
			p := wire[n]
			if cfg.Unpaced {
				arrPrev, arrCur = arrCur, p.x // applied on arrival
			} else {
				pending = append(pending, p)
			}
			n++
		}
		wire = wire[:copy(wire, wire[n:])]
		// 3. Draw.
		var remote float64
		if cfg.Unpaced {
			remote = arrPrev + (arrCur-arrPrev)*clientTS.Alpha()
		} else {
			t, ok := clock.Advance(cfg.Draw)
			if a, b, w, ok2 := hist.At(t); ok && ok2 {
				remote = *a + (*b-*a)*w
			}
		}
		drawn := [2]float64{mePrev + (me-mePrev)*clientTS.Alpha(), remote}
		for v, x := range drawn {
			if frame > cfg.Warmup {
				last[v] = record(&res.Views[v], last[v], x)
			} else {
				last[v] = x
			}
		}
	}
	for i := range res.Views {
		judge(&res.Views[i])
	}
	res.Queue = queue.Stats()
	return res, nil
}

func record(v *View, last, x float64) float64 {
	v.Moves = append(v.Moves, math.Abs(x-last))
	return x
}

func judge(v *View) {
	s := slices.Clone(v.Moves)
	slices.Sort(s)
	v.Typical = s[len(s)/2]
	for _, m := range v.Moves {
		r := m / v.Typical
		if v.Typical == 0 {
			r = 0
		}
		if r < 0.5 || r > 1.5 {
			v.Hitches++
		}
		v.Worst = max(v.Worst, math.Abs(r-1))
	}
}
