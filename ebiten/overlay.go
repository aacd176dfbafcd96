package rollebiten

import (
	"fmt"
	"image"
	"image/color"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/ebitenutil"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"github.com/rollnet/rollnet/netplay"
)

// graphLen is the samples the network graph shows: one per Update.
const graphLen = 120

// sample is one Update's numbers for the network graph.
type sample struct {
	rtt       int32 // ms
	rollbacks int32 // the running count
	advantage int32
}

// overlay draws the status and the network graph (a performance monitor
// after GGPO's: round trip, rollbacks per second, frame advantage). Its
// text is formatted only when what it says changes, so a steady match
// draws it without allocating.
type overlay struct {
	status, graph bool
	tps           int
	ring          []sample // graphLen + tps samples: a second behind the oldest drawn
	n             int      // samples written

	statusBox, graphBox image.Rectangle // zero: the defaults (see Config)

	key   statusKey
	width int // the width the lines were wrapped to

	// The input delay (netplay DelayBounds.Follow): the running match's,
	// and while a change shows (delayShow samples after the last step),
	// the delay before it began and the sample of its last step.
	delay, delayWas, delayAt int
	delaySeen                bool
	lines                    []string
	nums                     [3]int32
	label                    [3]string
}

// statusKey is what the status text says, to tell when to format it.
type statusKey struct {
	phase                     netplay.Phase
	have, need, done, total   int
	waiting, interrupted, out string
	timeout, comeBack         int // tenths of a second, seconds
	desync, repaired          string
	ended                     netplay.EndReason
	awaiting                  string // a player every peer waits for (netplay Config.Absence)
	awaitedAt, awaitedFor     int    // the frame stopped at; seconds waited
	delayWas, delay           int    // a change of the input delay showing (delayWas != delay)
}

// delayShow is how long a change of the input delay shows, in seconds
// after its last step.
const delayShow = 3

func (o *overlay) init(tps int, status, graph bool) {
	o.status, o.graph, o.tps = status, graph, tps
	o.ring = make([]sample, graphLen+tps)
	o.lines = make([]string, 0, 8)
}

// place sets where the status and the graph go (zero: their defaults).
func (o *overlay) place(status, graph image.Rectangle) {
	o.statusBox, o.graphBox = status.Canon(), graph.Canon()
	o.width = 0 // wrap again
}

// boxes are the status's and the graph's boxes on screen.
func (o *overlay) boxes(screen image.Rectangle) (status, graph image.Rectangle) {
	status, graph = o.statusBox, o.graphBox
	if status.Empty() {
		status = screen
	}
	if graph.Empty() {
		graph = image.Rect(screen.Max.X-graphLen-margin, screen.Max.Y-3*rowH-margin, screen.Max.X-margin, screen.Max.Y-margin)
	}
	return status, graph
}

// sample records one Update.
func (o *overlay) sample(st *netplay.Status) {
	o.ring[o.n%len(o.ring)] = sample{
		rtt:       int32(st.RTT / time.Millisecond),
		rollbacks: int32(st.Rollbacks),
		advantage: int32(st.FrameAdvantage),
	}
	o.n++
	if st.Phase != netplay.Running {
		return
	}
	switch {
	case !o.delaySeen:
		o.delay, o.delayWas, o.delaySeen = st.InputDelay, st.InputDelay, true
	case st.InputDelay != o.delay:
		if !o.delayShowing() {
			o.delayWas = o.delay // a new change (else a shrink's next step)
		}
		o.delay, o.delayAt = st.InputDelay, o.n
	}
}

// delayShowing reports whether a change of the input delay shows.
func (o *overlay) delayShowing() bool {
	return o.delayWas != o.delay && o.n-o.delayAt < delayShow*o.tps
}

// at is the i-th newest sample (0: the newest) and whether there is one.
func (o *overlay) at(i int) (sample, bool) {
	if i >= o.n || i >= len(o.ring) {
		return sample{}, false
	}
	return o.ring[(o.n-1-i)%len(o.ring)], true
}

// perSecond is the rollbacks in the second before the i-th newest sample.
func (o *overlay) perSecond(i int) int32 {
	s, ok := o.at(i)
	if !ok {
		return 0
	}
	old, ok := o.at(i + o.tps)
	if !ok {
		old, _ = o.at(o.n - 1) // the oldest: fewer than tps samples yet
	}
	return s.rollbacks - old.rollbacks
}

var (
	overlayShade = color.RGBA{0, 0, 0, 0xb0}
	graphColors  = [3]color.RGBA{{0x40, 0xc0, 0xff, 0xff}, {0xff, 0x60, 0x60, 0xff}, {0xf0, 0xe0, 0x40, 0xff}}
)

// graph scales: full height is 200 ms, 30 rollbacks a second, ±8 frames.
var graphFull = [3]int32{200, 30, 8}

const (
	rowH   = 14
	charW  = 6
	lineH  = 16
	margin = 4
)

func (o *overlay) draw(screen *ebiten.Image, st *netplay.Status) {
	sb, gb := o.boxes(screen.Bounds())
	if o.status {
		o.drawStatus(screen, sb, st)
	}
	if o.graph && st.Phase != netplay.Connecting {
		o.drawGraph(screen, gb)
	}
}

func (o *overlay) drawStatus(screen *ebiten.Image, box image.Rectangle, st *netplay.Status) {
	if !o.text(st, box.Dx()) {
		return // a running match says nothing; a tick's wait shows in the graph
	}
	o.shade(screen, box, o.lines)
}

// drawLines draws text in the status box, over what is there (it
// allocates: for a question, not a frame's status).
func (o *overlay) drawLines(screen *ebiten.Image, text string) {
	box, _ := o.boxes(screen.Bounds())
	o.shade(screen, box, wrap(nil, text, (box.Dx()-2*margin)/charW))
}

// shade draws lines on a shade at the top of box.
func (o *overlay) shade(screen *ebiten.Image, box image.Rectangle, lines []string) {
	h := min(len(lines)*lineH+2*margin, box.Dy())
	vector.DrawFilledRect(screen, float32(box.Min.X), float32(box.Min.Y), float32(box.Dx()), float32(h), overlayShade, false)
	for i, l := range lines {
		y := margin + i*lineH
		if y+lineH > box.Dy() {
			break // the box is full: the rest is cut
		}
		ebitenutil.DebugPrintAt(screen, l, box.Min.X+margin, box.Min.Y+y)
	}
}

// text sets o.lines to what the status says, wrapped to a box width
// wide, formatted only when it changed; it reports false when there is
// nothing to say (a running match, no one away, interrupted or awaited,
// no desync, none repaired in the last few seconds, the input delay not
// changed in the last delayShow seconds).
func (o *overlay) text(st *netplay.Status, width int) bool {
	k := statusKey{
		phase: st.Phase, have: st.Have, need: st.Need, done: st.Done, total: st.Total,
		waiting: st.Waiting, interrupted: st.Interrupted, out: st.Away,
		timeout: int(st.Timeout / (time.Second / 10)), comeBack: int(st.ComeBack / time.Second),
		desync: st.Desync, repaired: st.Repaired, ended: st.Ended,
		awaiting: st.Awaiting, awaitedAt: int(st.AwaitedAt), awaitedFor: int(st.AwaitedFor / time.Second),
	}
	if o.delayShowing() {
		k.delayWas, k.delay = o.delayWas, o.delay
	}
	quiet := st.Phase == netplay.Running && st.Interrupted == "" && st.Away == "" && st.Desync == "" && st.Awaiting == "" && st.Repaired == ""
	if quiet && k.delayWas == k.delay {
		return false
	}
	if k != o.key || len(o.lines) == 0 || o.width != width {
		o.key, o.width = k, width
		text := ""
		if !quiet {
			text = st.String()
		}
		if k.delayWas != k.delay {
			if text != "" {
				text += "; "
			}
			text += fmt.Sprintf("input delay %d -> %d frames (following the network)", k.delayWas, k.delay)
		}
		o.lines = wrap(o.lines[:0], text, (width-2*margin)/charW)
	}
	return true
}

// wrap splits text into lines of at most width characters, at spaces
// where it can.
func wrap(lines []string, text string, width int) []string {
	width = max(width, 8)
	for len(text) > width {
		cut := width
		for i := width; i > width/2; i-- {
			if text[i] == ' ' {
				cut = i
				break
			}
		}
		lines = append(lines, text[:cut])
		text = text[min(cut+1, len(text)):]
	}
	return append(lines, text)
}

var graphNames = [3]string{"rtt %dms", "rb/s %d", "adv %+d"}

func (o *overlay) drawGraph(screen *ebiten.Image, box image.Rectangle) {
	x0, y0 := float32(box.Min.X), float32(box.Min.Y)
	n := min(box.Dx(), graphLen) // ticks shown, one a pixel
	rh := float32(box.Dy()) / 3  // a row's height
	vector.DrawFilledRect(screen, x0-2, y0-2, float32(n)+4, float32(box.Dy())+4, overlayShade, false)
	newest, _ := o.at(0)
	now := [3]int32{newest.rtt, o.perSecond(0), newest.advantage}
	for r := range 3 {
		if now[r] != o.nums[r] || o.label[r] == "" {
			o.nums[r] = now[r]
			o.label[r] = fmt.Sprintf(graphNames[r], now[r])
		}
		base := y0 + float32(r)*rh + rh - 1
		for i := range n {
			s, ok := o.at(i)
			if !ok {
				break
			}
			v := [3]int32{s.rtt, 0, s.advantage}[r]
			if r == 1 {
				v = o.perSecond(i)
			}
			bar := float32(min(abs(v), graphFull[r])) * (rh - 2) / float32(graphFull[r])
			if bar < 1 && v != 0 {
				bar = 1
			}
			vector.DrawFilledRect(screen, x0+float32(n-1-i), base-bar, 1, bar, graphColors[r], false)
		}
		ebitenutil.DebugPrintAt(screen, o.label[r], int(x0)-len(o.label[r])*charW-margin, int(base)-lineH+2)
	}
}

func abs(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}
