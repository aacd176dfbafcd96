package pacing

import (
	"fmt"
	"math"
)

// DefaultHistoryLength is the length a zero HistoryConfig.Length means.
const DefaultHistoryLength = 16

// HistoryConfig configures a History. The zero value of every field means
// its documented default.
type HistoryConfig struct {
	// Length is how many frames, back from the newest, are kept. It must
	// cover the render delay plus the frames a stall can hold the stream
	// back. Zero means DefaultHistoryLength. Range [2, 4096].
	Length int
}

// History keeps the states of the newest Length frames, by frame, so
// entities drawn in the past can be blended at the Clock's render time: put
// each tick's state (applied or coasted) as the tick runs, and ask At(T)
// for the two states either side of T and the weight between them. A frame
// missing from the history (a tick that jumped over it) is bridged by the
// nearest frames either side; past the newest frame, the newest is held.
//
// States are stored by value in slots allocated once by NewHistory. A
// History is not safe for concurrent use. Put and At never allocate.
type History[S any] struct {
	states []S
	frames []int32
	valid  []bool
	newest int32
	have   bool
}

// NewHistory returns an empty History.
func NewHistory[S any](cfg HistoryConfig) (*History[S], error) {
	if cfg.Length == 0 {
		cfg.Length = DefaultHistoryLength
	}
	if cfg.Length < 2 || cfg.Length > 4096 {
		return nil, fmt.Errorf("%w: Length %d not in [2, 4096]", errConfig, cfg.Length)
	}
	return &History[S]{
		states: make([]S, cfg.Length),
		frames: make([]int32, cfg.Length),
		valid:  make([]bool, cfg.Length),
	}, nil
}

func (h *History[S]) slot(frame int32) int {
	n := int64(len(h.states))
	return int((int64(frame)%n + n) % n)
}

// Put stores a copy of the state for frame. A frame newer than the newest
// moves the history on (frames skipped over are missing); one older than
// the newest replaces what was kept for it (a late state after a coast); one
// older than the history's length is ignored.
func (h *History[S]) Put(frame int32, s *S) {
	n := int64(len(h.states))
	switch {
	case !h.have || int64(frame)-int64(h.newest) >= n:
		clear(h.valid)
		h.newest, h.have = frame, true
	case frame > h.newest:
		for f := int64(h.newest) + 1; f < int64(frame); f++ {
			h.valid[h.slot(int32(f))] = false
		}
		h.newest = frame
	case int64(h.newest)-int64(frame) >= n:
		return
	}
	i := h.slot(frame)
	h.states[i], h.frames[i], h.valid[i] = *s, frame, true
}

// Get returns the state kept for frame; ok is false if it is not kept.
func (h *History[S]) Get(frame int32) (s *S, ok bool) {
	if !h.have || frame > h.newest || int64(h.newest)-int64(frame) >= int64(len(h.states)) {
		return nil, false
	}
	i := h.slot(frame)
	if !h.valid[i] || h.frames[i] != frame {
		return nil, false
	}
	return &h.states[i], true
}

// At returns the states to blend for render time t: draw a + (b - a)·w.
// Between two kept frames, a is the nearest at or before t, b the nearest
// after it and w how far t is from a to b. Past the newest frame (or before
// the oldest kept) both are that end's state and w is 0. ok is false when
// the history is empty. The pointers are valid until the next Put or Reset.
func (h *History[S]) At(t float64) (a, b *S, w float64, ok bool) {
	if !h.have || math.IsNaN(t) {
		return nil, nil, 0, false
	}
	oldest := int64(h.newest) - int64(len(h.states)) + 1
	f := int64(math.Floor(max(min(t, float64(h.newest)), float64(oldest))))
	var lo, hi *S
	var flo, fhi int64
	for g := f; g >= oldest && lo == nil; g-- {
		lo, _ = h.Get(int32(g))
		flo = g
	}
	for g := f + 1; g <= int64(h.newest) && hi == nil; g++ {
		hi, _ = h.Get(int32(g))
		fhi = g
	}
	switch {
	case lo != nil && hi != nil:
		w = min(max((t-float64(flo))/float64(fhi-flo), 0), 1)
		return lo, hi, w, true
	case lo != nil:
		return lo, lo, 0, true
	default:
		return hi, hi, 0, true
	}
}

// Newest returns the newest frame kept; ok is false when empty.
func (h *History[S]) Newest() (frame int32, ok bool) { return h.newest, h.have }

// Reset forgets every state.
func (h *History[S]) Reset() {
	clear(h.valid)
	h.have = false
}
