// Package window resolves a rollback session's limits from its config:
// the ring capacity, the redo window and the prediction limit. The core
// session validates its Config with it, and the P2P protocol, built on
// the core, reads the same resolved limits from it.
package window

import "fmt"

// DefaultCapacity is the ring capacity a zero Capacity means.
const DefaultCapacity = 16

// Limits are a session's resolved limits.
type Limits struct {
	// Capacity is the number of committed states the ring keeps, a power
	// of two.
	Capacity int
	// Redo is W = Capacity-1-InputDelay: how far back a remote input may
	// land.
	Redo int
	// MaxPrediction is how many frames AdvanceFrame may run past the
	// confirmed frame (0 under lockstep).
	MaxPrediction int
}

// Resolve checks a session's Capacity (0 means DefaultCapacity),
// InputDelay, MaxPrediction (0 means the whole redo window) and Lockstep,
// and returns the limits they mean. The error says what is wrong; the
// caller wraps it with its package's config error.
func Resolve(capacity, delay, maxPred int, lockstep bool) (Limits, error) {
	in := capacity
	if capacity == 0 {
		capacity = DefaultCapacity
	}
	if capacity < 1 || capacity&(capacity-1) != 0 || capacity > 1<<20 {
		return Limits{}, fmt.Errorf("capacity %d is not a power of two in [1, 2^20]", in)
	}
	if delay < 0 || delay > capacity-1 {
		return Limits{}, fmt.Errorf("InputDelay %d not in [0, Capacity-1 = %d]", delay, capacity-1)
	}
	redo := capacity - 1 - delay
	switch {
	case lockstep && maxPred != 0:
		return Limits{}, fmt.Errorf("MaxPrediction %d with Lockstep (which means 0)", maxPred)
	case lockstep:
		maxPred = 0
	case redo < 1:
		return Limits{}, fmt.Errorf("redo window Capacity-1-InputDelay = %d < 1 (raise Capacity or lower InputDelay)", redo)
	case maxPred < 0 || maxPred > redo:
		return Limits{}, fmt.Errorf("MaxPrediction %d not in [0, Capacity-1-InputDelay = %d]", maxPred, redo)
	case maxPred == 0:
		maxPred = redo
	}
	return Limits{Capacity: capacity, Redo: redo, MaxPrediction: maxPred}, nil
}
