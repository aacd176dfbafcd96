package session

// Package p2p runs its protocol on this session through the exported API
// alone (all of it allocation-free), and resolves the same limits through
// internal/window. ChecksumAt answers only after AdvanceFrame (a pending
// rollback makes frames from the wrong one unanswerable until the next
// AdvanceFrame); peers compare at min(ConfirmedFrame(), Frame()-1).

import (
	"fmt"
	"math/bits"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/window"
	"github.com/rollnet/rollnet/rollback"
)

// MaxPlayers is the largest Config.Players.
const MaxPlayers = 64

// Config configures a Session. The zero value of every field but Players
// means its documented default.
type Config[I comparable] struct {
	// Players is the number of players, 1..64. Every player has one input
	// per frame, local or remote.
	Players int
	// Capacity is the number of committed states kept for rollback, a
	// power of two; 0 means 16. A rollback can reach back Capacity-1
	// frames.
	Capacity int
	// InputDelay is the number of frames between AddLocalInput and the
	// frame the input is for. Frames [0, InputDelay) have the zero input
	// for every player.
	InputDelay int
	// MaxPrediction is how many frames AdvanceFrame may run past ConfirmedFrame().
	// 0 means as many as the window allows: W = Capacity-1-InputDelay.
	// It may not exceed W.
	MaxPrediction int
	// Lockstep makes the session never predict: AdvanceFrame waits (returning
	// ErrPredictionLimit) until every player's input for the frame is
	// confirmed. MaxPrediction must then be 0.
	Lockstep bool
	// Predict guesses a missing input of player for frame from last, the
	// input confirmed for the nearest earlier frame (the zero value if
	// none). nil repeats last. It must be deterministic.
	Predict func(player int, last I, frame rollnet.Frame) I
	// OnDesync, if set, is called when a remote input contradicts an input
	// already confirmed for the same frame and player.
	OnDesync func(frame rollnet.Frame, player int)
}

// Stats are a session's counters since New or the last Reset.
type Stats struct {
	// Rollbacks counts AdvanceFrame calls that rolled back (at most one per AdvanceFrame).
	Rollbacks int
	// MaxRollbackDepth is the most frames one rollback re-simulated.
	MaxRollbackDepth int
	// Mispredictions counts inputs that arrived for a frame already
	// simulated with a different, predicted input.
	Mispredictions int
	// ResimulatedFrames counts frames simulated again by rollbacks (not
	// the new frame each AdvanceFrame simulates).
	ResimulatedFrames int
	// Desyncs counts remote inputs that contradicted a confirmed input.
	Desyncs int
	// StaleInputs counts remote inputs ignored because their frame was
	// older than the redo window.
	StaleInputs int
}

// Session is a rollback session without a network: it simulates a frame
// per AdvanceFrame with every player's confirmed input or a prediction, and rolls
// back (at most once per AdvanceFrame) when a late input contradicts a prediction.
// A Session is not safe for concurrent use.
type Session[S any, I comparable] struct {
	simulate func(s *S, inputs []I, frame rollnet.Frame)
	predict  func(player int, last I, frame rollnet.Frame) I
	onDesync func(frame rollnet.Frame, player int)
	ring     *rollback.Ring[S]
	codec    inputCodec[I]

	players int
	delay   int // InputDelay
	window  int // W = Capacity - 1 - InputDelay
	maxPred int // effective MaxPrediction
	all     uint64

	frame     rollnet.Frame // next frame AdvanceFrame simulates
	started   bool          // genesis committed
	confirmed rollnet.Frame // ConfirmedFrame()
	pending   rollnet.Frame // earliest frame simulated with a wrong prediction, or NoFrame
	lastLocal rollnet.Frame // newest frame AddLocalInput covered
	stats     Stats

	// The input ring: slot int(f)&mask holds frame f while tags[slot] == f.
	mask   int
	tags   []rollnet.Frame
	conf   []uint64 // bit p: player p's input is confirmed
	inputs []I      // [slot*players + p]: confirmed inputs
	used   []I      // [slot*players + p]: the prediction the frame was last simulated with, for a player unconfirmed then
	args   []I      // players: the slice simulate receives

	contig []rollnet.Frame // per player: newest g with every frame <= g confirmed
	newest []rollnet.Frame // per player: newest confirmed frame
}

// New returns a session for cfg that advances a state of type S with
// simulate. S must be pointer-free and gap-free (see rollback.CheckType);
// so must I. simulate must be deterministic and must not retain inputs.
// Set the initial state through State() before the first AdvanceFrame.
func New[S any, I comparable](cfg Config[I], simulate func(s *S, inputs []I, frame rollnet.Frame)) (*Session[S, I], error) {
	if simulate == nil {
		return nil, fmt.Errorf("%w: simulate is nil", errConfig)
	}
	if cfg.Players < 1 || cfg.Players > MaxPlayers {
		return nil, fmt.Errorf("%w: Players %d not in [1, %d]", errConfig, cfg.Players, MaxPlayers)
	}
	lim, err := window.Resolve(cfg.Capacity, cfg.InputDelay, cfg.MaxPrediction, cfg.Lockstep)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errConfig, err)
	}
	capacity, redo, maxPred := lim.Capacity, lim.Redo, lim.MaxPrediction
	ic, err := newInputCodec[I]()
	if err != nil {
		return nil, err
	}
	ring, err := rollback.New[S](capacity)
	if err != nil {
		return nil, fmt.Errorf("%w: state: %w", errConfig, err)
	}
	// The input ring must hold frames from Frame()-W (the oldest
	// accepted; a prediction's base is never older, since
	// ConfirmedFrame() >= Frame()-MaxPrediction whenever AdvanceFrame simulates)
	// to Frame()+InputDelay+MaxPrediction (a peer running ahead by the
	// whole prediction window): W+InputDelay+MaxPrediction+1 frames. It
	// keeps one more, Frame()-W-1, as a margin.
	span := redo + cfg.InputDelay + maxPred + 2
	slots := 1 << bits.Len(uint(span-1))
	s := &Session[S, I]{
		simulate: simulate,
		predict:  cfg.Predict,
		onDesync: cfg.OnDesync,
		ring:     ring,
		codec:    ic,
		players:  cfg.Players,
		delay:    cfg.InputDelay,
		window:   redo,
		maxPred:  maxPred,
		all:      ^uint64(0) >> (64 - cfg.Players),
		mask:     slots - 1,
		tags:     make([]rollnet.Frame, slots),
		conf:     make([]uint64, slots),
		inputs:   make([]I, slots*cfg.Players),
		used:     make([]I, slots*cfg.Players),
		args:     make([]I, cfg.Players),
		contig:   make([]rollnet.Frame, cfg.Players),
		newest:   make([]rollnet.Frame, cfg.Players),
	}
	s.reset()
	return s, nil
}

// reset puts everything but the live state and the ring in the state of a
// new match.
func (s *Session[S, I]) reset() {
	s.frame = 0
	s.started = false
	s.pending = rollnet.NoFrame
	s.stats = Stats{}
	for i := range s.tags {
		s.tags[i] = rollnet.NoFrame
		s.conf[i] = 0
	}
	clear(s.inputs)
	clear(s.used)
	// Frames [0, InputDelay): the zero input, confirmed for everyone.
	for f := range rollnet.Frame(s.delay) {
		s.tags[int(f)&s.mask] = f
		s.conf[int(f)&s.mask] = s.all
	}
	last := rollnet.Frame(s.delay) - 1
	for p := range s.contig {
		s.contig[p] = last
		s.newest[p] = last
	}
	s.confirmed = last
	s.lastLocal = last
}

// Reset starts a new match: the live state becomes the zero S, and every
// input, committed state and counter is forgotten. The Config stays. Set
// the initial state through State() before the next AdvanceFrame.
func (s *Session[S, I]) Reset() {
	var zero S
	*s.ring.Live() = zero
	s.ring.Reset()
	s.reset()
}

// Rebase starts the session over from the state after frame, st (a
// peer's state, to repair a desync): every input and committed state is
// forgotten, the counters stay, and the next AdvanceFrame simulates
// frame+1. Give every player's inputs from frame+1 on again, with
// AddRemoteInput (a local player's too: AddLocalInput gives only
// Frame()+InputDelay). frame must be at least -1 (the genesis), else
// ErrArgument.
func (s *Session[S, I]) Rebase(frame rollnet.Frame, st *S) error {
	if frame < -1 {
		return fmt.Errorf("%w: Rebase at frame %d", ErrArgument, frame)
	}
	*s.ring.Live() = *st
	s.ring.Reset()
	s.ring.Commit()
	s.started = true
	s.frame = frame + 1
	s.pending = rollnet.NoFrame
	for i := range s.tags {
		s.tags[i] = rollnet.NoFrame
		s.conf[i] = 0
	}
	clear(s.inputs)
	clear(s.used)
	for p := range s.contig {
		s.contig[p] = frame
		s.newest[p] = frame
	}
	s.confirmed = frame
	s.lastLocal = frame
	return nil
}

// State returns the live state. Write the initial state through it before
// the first AdvanceFrame; afterwards read it (the state after frame Frame()-1) but
// do not write it, or peers will disagree.
func (s *Session[S, I]) State() *S { return s.ring.Live() }

// Frame returns the frame the next AdvanceFrame simulates (0 at start).
func (s *Session[S, I]) Frame() rollnet.Frame { return s.frame }

// ConfirmedFrame returns the newest frame F such that every player's input
// is confirmed for every frame <= F (NoFrame if none). It may be ahead of
// Frame()-1.
func (s *Session[S, I]) ConfirmedFrame() rollnet.Frame { return s.confirmed }

// frameAdvantage returns the newest frame local input covers (the newest
// frame AddLocalInput has given an input for, or InputDelay-1) minus
// ConfirmedFrame(): how far local input runs ahead of what every peer has
// confirmed.
func (s *Session[S, I]) frameAdvantage() int { return int(s.lastLocal) - int(s.confirmed) }

// Stats returns the counters since New or the last Reset.
func (s *Session[S, I]) Stats() Stats { return s.stats }

// acceptWindow returns the frames AddRemoteInput stores: [lo, hi]. Older
// is stale (ignored), newer is ErrOutOfWindow.
func (s *Session[S, I]) acceptWindow() (lo, hi rollnet.Frame) {
	return s.frame - rollnet.Frame(s.window), s.frame + rollnet.Frame(s.delay+s.maxPred)
}

// slotOf returns the input-ring slot of frame f, claiming (and clearing)
// it for f if it held another frame: a slot reused a revolution later
// never shows the old revolution's inputs as current.
func (s *Session[S, I]) slotOf(f rollnet.Frame) int {
	slot := int(f) & s.mask
	if s.tags[slot] != f {
		s.tags[slot] = f
		s.conf[slot] = 0
	}
	return slot
}

// AddLocalInput confirms player's input for frame Frame()+InputDelay.
// Called again for the same frame before it is simulated (after a refused
// AdvanceFrame, say), the newest value replaces the old.
func (s *Session[S, I]) AddLocalInput(player int, in I) error {
	if uint(player) >= uint(s.players) {
		return ErrPlayer
	}
	f := s.frame + rollnet.Frame(s.delay)
	s.confirm(player, f, s.slotOf(f), in)
	if f > s.lastLocal {
		s.lastLocal = f
	}
	return nil
}

// AddRemoteInput records player's input for frame. Frames from
// Frame()-W (W = Capacity-1-InputDelay) to Frame()+InputDelay+MaxPrediction
// are accepted. Older is stale: ignored, counted in Stats.StaleInputs, nil
// returned. Newer, or a frame below 0, is ErrOutOfWindow and nothing is
// stored. A duplicate of a confirmed input does nothing. A different value
// for a confirmed input is a desync: the first value stays, Desyncs counts,
// OnDesync fires, and a *ConflictError (wrapping ErrConflict) is returned.
// An input that contradicts a prediction already simulated marks a
// rollback, which the next AdvanceFrame performs.
func (s *Session[S, I]) AddRemoteInput(player int, frame rollnet.Frame, in I) error {
	if uint(player) >= uint(s.players) {
		return ErrPlayer
	}
	if frame < 0 {
		return ErrOutOfWindow
	}
	lo, hi := s.acceptWindow()
	if frame < lo {
		s.stats.StaleInputs++
		return nil
	}
	if frame > hi {
		return ErrOutOfWindow
	}
	slot := s.slotOf(frame)
	i := slot*s.players + player
	if s.conf[slot]&(1<<(player&63)) != 0 {
		if s.inputs[i] == in {
			return nil
		}
		s.stats.Desyncs++
		if s.onDesync != nil {
			s.onDesync(frame, player)
		}
		return &ConflictError{Frame: frame, Player: player}
	}
	s.confirm(player, frame, slot, in)
	// Unconfirmed until now, so unconfirmed when frame was simulated:
	// used holds the prediction it was simulated with.
	if frame < s.frame && s.used[i] != in {
		s.stats.Mispredictions++
		if s.pending == rollnet.NoFrame || frame < s.pending {
			s.pending = frame
		}
	}
	return nil
}

// confirm stores player's input for frame f (in slot) and advances the
// confirmation marks.
func (s *Session[S, I]) confirm(p int, f rollnet.Frame, slot int, in I) {
	s.inputs[slot*s.players+p] = in
	s.conf[slot] |= 1 << (p & 63) // (& 63: p < MaxPlayers, and the shift needs no test for 64)
	old := s.contig[p]
	if f != old+1 {
		// Out of order, or a local input given again.
		if f > s.newest[p] {
			s.newest[p] = f
		}
		return
	}
	c := f
	if f >= s.newest[p] {
		s.newest[p] = f // in order: the common case
	} else {
		// A gap closed: walk over the inputs that arrived ahead of it.
		for c < s.newest[p] {
			n := c + 1
			sl := int(n) & s.mask
			if s.tags[sl] != n || s.conf[sl]&(1<<p) == 0 {
				break
			}
			c = n
		}
	}
	s.contig[p] = c
	if old == s.confirmed {
		m := c
		for _, g := range s.contig {
			m = min(m, g)
		}
		s.confirmed = m
	}
}

// Players returns the number of players.
func (s *Session[S, I]) Players() int { return s.players }

// ConfirmedInput returns player's input of frame f once every input of f
// is known (f <= ConfirmedFrame), while the session still holds it (the
// newest Capacity frames). A recorder reads confirmed frames through it
// (replay.Source).
func (s *Session[S, I]) ConfirmedInput(player int, f rollnet.Frame) (I, bool) {
	return s.confirmedInput(player, f)
}

// confirmedInput returns player p's confirmed input for frame f, if it is
// confirmed and still held.
func (s *Session[S, I]) confirmedInput(p int, f rollnet.Frame) (I, bool) {
	var zero I
	if uint(p) >= uint(s.players) || f < 0 {
		return zero, false
	}
	slot := int(f) & s.mask
	if s.tags[slot] != f || s.conf[slot]&(1<<p) == 0 {
		return zero, false
	}
	return s.inputs[slot*s.players+p], true
}

// playerConfirmedFrame returns the newest frame g such that player p's
// inputs are confirmed for every frame <= g.
func (s *Session[S, I]) playerConfirmedFrame(p int) rollnet.Frame { return s.contig[p] }

// AdvanceFrame simulates frame Frame() with every player's input for it,
// confirmed or predicted, and commits the state. Before that it performs
// the one rollback marked since the last AdvanceFrame, if any: back to just before
// the earliest mispredicted frame, then forward again with what is now
// known. The first AdvanceFrame (and the first after Reset) first commits the
// state as it stands (genesis), so frame 0 can be rolled back.
//
// When Frame()-ConfirmedFrame() > MaxPrediction, AdvanceFrame returns
// ErrPredictionLimit and changes nothing.
func (s *Session[S, I]) AdvanceFrame() error {
	if int(s.frame)-int(s.confirmed) > s.maxPred {
		return ErrPredictionLimit
	}
	if !s.started {
		s.ring.Commit()
		s.started = true
	}
	if s.pending != rollnet.NoFrame {
		if err := s.rollback(); err != nil {
			return err
		}
	}
	s.simulateFrame(s.frame)
	s.frame++
	return nil
}

// rollback restores the state from before the pending frame and
// re-simulates up to Frame()-1.
func (s *Session[S, I]) rollback() error {
	from := s.pending
	n := int(s.frame - from)
	if err := s.ring.Rollback(n); err != nil {
		return s.rollbackError(n, err)
	}
	s.pending = rollnet.NoFrame
	for f := from; f < s.frame; f++ {
		s.simulateFrame(f)
	}
	s.stats.Rollbacks++
	s.stats.ResimulatedFrames += n
	s.stats.MaxRollbackDepth = max(s.stats.MaxRollbackDepth, n)
	return nil
}

// rollbackError is the error of a rollback of n frames the ring refused
// with err, out of line (the formatting would weigh on every rollback).
// Unreachable: inputs are accepted only within the window, which the ring
// holds.
func (s *Session[S, I]) rollbackError(n int, err error) error {
	return fmt.Errorf("session: rollback of %d frames from frame %d: %w", n, s.frame, err)
}

// simulateFrame simulates frame f on the live state with the confirmed or
// predicted inputs, records the predictions, and commits.
func (s *Session[S, I]) simulateFrame(f rollnet.Frame) {
	slot := s.slotOf(f)
	base := slot * s.players
	args := s.args
	copy(args, s.inputs[base:base+s.players])
	if c := s.conf[slot]; c != s.all {
		s.predictFrame(f, base, c) // out of line: with every input confirmed, nothing is called but simulate
	}
	s.simulate(s.ring.Live(), args, f)
	s.ring.Commit()
}

// predictFrame puts a prediction for frame f in args for every player
// not in c (the confirmed ones) and records it in used (at base, f's
// slot). Only those entries of used are meaningful: an input confirmed
// when its frame was simulated is the one it was simulated with.
//
// A player's prediction is the input confirmed for the nearest earlier
// frame (by frame, not by arrival), or what Predict makes of it.
func (s *Session[S, I]) predictFrame(f rollnet.Frame, base int, c uint64) {
	for m := s.all &^ c; m != 0; m &= m - 1 {
		p := bits.TrailingZeros64(m)
		g := s.newest[p]
		if g >= f {
			g = s.predictionBase(p, f)
		}
		var last I
		if g >= 0 {
			last = s.inputs[(int(g)&s.mask)*s.players+p]
		}
		if s.predict != nil {
			last = s.predict(p, last, f)
		}
		s.used[base+p] = last
		s.args[p] = last
	}
}

// predictionBase returns the newest frame before f with player p's input
// confirmed, when an input for f or a later frame has arrived (out of
// order): everything up to contig[p] is confirmed, so the search back
// from f-1 stops there.
func (s *Session[S, I]) predictionBase(p int, f rollnet.Frame) rollnet.Frame {
	g := f - 1
	for g > s.contig[p] {
		sl := int(g) & s.mask
		if s.tags[sl] == g && s.conf[sl]&(1<<p) != 0 {
			break
		}
		g--
	}
	return g
}

// held returns how far back (n for ring.Peek) the committed state after
// frame f is, or an error if it is not held or awaits re-simulation.
func (s *Session[S, I]) held(f rollnet.Frame) (int, error) {
	n := int(s.frame) - 1 - int(f)
	if n < 0 || n >= s.ring.Depth() {
		return 0, fmt.Errorf("%w: frame %d (held: %d..%d)", ErrOutOfWindow, f, int(s.frame)-s.ring.Depth(), s.frame-1)
	}
	if s.pending != rollnet.NoFrame && f >= s.pending {
		return 0, fmt.Errorf("%w: frame %d awaits re-simulation from frame %d at the next Step", ErrOutOfWindow, f, s.pending)
	}
	return n, nil
}

// ChecksumAt returns the CRC32-C of the state committed after frame (frame
// -1 is the genesis state), while it is held: frames from
// Frame()-Capacity to Frame()-1, and not at or after a frame marked for
// re-simulation by an input since the last AdvanceFrame. Anything else is
// ErrOutOfWindow. Peers compare at min(ConfirmedFrame(), Frame()-1).
func (s *Session[S, I]) ChecksumAt(frame rollnet.Frame) (uint32, error) {
	n, err := s.held(frame)
	if err != nil {
		return 0, err
	}
	return s.ring.ChecksumAt(n)
}

// StateAt returns the state committed after frame, under the same rules
// as ChecksumAt. The pointer aliases the session's storage: read it, do
// not write it, and do not keep it past the next AdvanceFrame.
func (s *Session[S, I]) StateAt(frame rollnet.Frame) (*S, error) {
	n, err := s.held(frame)
	if err != nil {
		return nil, err
	}
	return s.ring.Peek(n)
}
