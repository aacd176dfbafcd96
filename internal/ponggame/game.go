// Package ponggame is the pong of demo/pong: its deterministic rules alone,
// with nothing of the network, the screen or the browser, so that the
// cross-architecture replays build it for every architecture in seconds.
//
// Everything here is integer arithmetic on a pointer-free, padding-free
// State, so every peer that applies the same inputs from the same start
// reaches the same bytes, on any machine.
package ponggame

import (
	"github.com/rollnet/rollnet"
)

// Sub is the number of fixed-point units in one court cell: positions and
// velocities are in 1/256 of a cell.
const Sub = 256

// The court, in fixed-point units. The view scales it to the terminal.
const (
	CourtW = 80 * Sub
	CourtH = 24 * Sub

	PaddleH = 4 * Sub // paddle height
	PaddleV = Sub / 2 // paddle speed per frame

	// The faces the ball bounces off: the left paddle fills column 2, the
	// right one column 77.
	FaceL = 3 * Sub
	FaceR = 77 * Sub

	ServeVX   = Sub * 5 / 8 // horizontal speed of a serve, per frame
	MaxVX     = Sub * 3 / 2 // horizontal speed cap (under a paddle's reach per frame)
	MaxVY     = Sub * 3 / 4 // vertical speed cap
	ServeWait = 60          // frames between a point and the next serve
	WinScore  = 11          // points that win a match
	NextMatch = 180         // frames the winner is shown before a new match
)

// Input is one player's input for one frame: a bit set of InputUp and
// InputDown.
type Input uint8

// The input bits.
const (
	InputUp   Input = 1 << 0
	InputDown Input = 1 << 1
)

// State is the whole game. It is pointer-free and padding-free (every
// field is fixed-width and the struct's size is the sum of its fields'),
// so its bytes are what peers checksum.
type State struct {
	Rng            rollnet.Rand // serve PRNG (SplitMix64); lives here so rollback restores it
	BallX, BallY   int32        // ball position, fixed point
	BallVX, BallVY int32        // ball velocity per frame, fixed point
	PaddleY        [2]int32     // top of each paddle, fixed point
	Rally          int32        // paddle hits since the last serve
	Wait           int32        // frames until the next serve (or the next match)
	Matches        int32        // matches finished
	Score          [2]uint8     // points this match
	Server         uint8        // side the next serve goes towards
	Winner         uint8        // 0 while a match is on; 1 or 2 when side 0 or 1 won
	Wins           [2]uint8     // matches won by each side (wraps at 256)
	_              [6]byte      // explicit padding to a multiple of 8
}

// NewState returns the state before frame 0 of a match whose serves are
// drawn from seed. Both peers must use the same seed.
func NewState(seed uint32) State {
	var s State
	s.Rng = rollnet.NewRand(uint64(seed))
	s.reset()
	return s
}

// reset starts a match, keeping the PRNG and the match tally.
func (s *State) reset() {
	s.PaddleY = [2]int32{(CourtH - PaddleH) / 2, (CourtH - PaddleH) / 2}
	s.Score = [2]uint8{}
	s.Winner = 0
	s.Server = uint8(s.Rng.Uint64() & 1)
	s.park()
	s.Wait = ServeWait
}

// park puts the ball at the centre, at rest.
func (s *State) park() {
	s.BallX, s.BallY = CourtW/2, CourtH/2
	s.BallVX, s.BallVY = 0, 0
	s.Rally = 0
}

// serve launches the ball from the centre towards s.Server at a random
// angle.
func (s *State) serve() {
	s.park()
	vy := s.Rng.Int32N(MaxVY) - MaxVY/2 // in [-MaxVY/2, MaxVY/2)
	if vy > -Sub/16 && vy < Sub/16 {
		vy = Sub / 8 // never a flat serve
	}
	s.BallVY = vy
	s.BallVX = ServeVX
	if s.Server == 0 {
		s.BallVX = -ServeVX
	}
}

// Simulate is Step in the shape a session takes: one frame, the inputs of
// players 0 and 1.
//
//rollnet:simulate
func Simulate(s *State, in []Input, _ rollnet.Frame) { Step(s, [2]Input{in[0], in[1]}) }

// AuthoritySlots is the slots of pong's server-authoritative mode: the
// left paddle, the right one and a spectator's, whose input moves nothing
// (Simulate reads the first two). A dedicated host (rollnet-host -game
// pong, pong host) and its clients must agree on it.
const AuthoritySlots = 3

// SeedFor is the serve seed of a match in room: FNV-1a of its name, so
// that every peer in the room serves alike without agreeing on anything
// else (and a dedicated host derives the same from its room).
func SeedFor(room string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(room); i++ {
		h ^= uint32(room[i])
		h *= 16777619
	}
	return h
}

// Step advances the game by one frame with both players' inputs. It is
// deterministic: integer arithmetic only, no clock, no global state.
func Step(s *State, in [2]Input) {
	for p := range 2 {
		switch in[p] & (InputUp | InputDown) {
		case InputUp:
			s.PaddleY[p] = max(s.PaddleY[p]-PaddleV, 0)
		case InputDown:
			s.PaddleY[p] = min(s.PaddleY[p]+PaddleV, CourtH-PaddleH)
		}
	}
	if s.Winner != 0 {
		if s.Wait--; s.Wait <= 0 {
			s.Matches++
			s.reset()
		}
		return
	}
	if s.Wait > 0 {
		if s.Wait--; s.Wait == 0 {
			s.serve()
		}
		return
	}

	px, py := s.BallX, s.BallY
	x, y := px+s.BallVX, py+s.BallVY
	// Walls: reflect off the top and bottom.
	if y < 0 {
		y, s.BallVY = -y, -s.BallVY
	} else if y >= CourtH {
		y, s.BallVY = 2*(CourtH-1)-y, -s.BallVY
	}
	// Paddles: the ball bounces when it crosses a face this frame at a
	// height the paddle covers.
	switch {
	case s.BallVX < 0 && px >= FaceL && x < FaceL:
		if yc := cross(px, py, x, y, FaceL); s.covers(0, yc) {
			x = 2*FaceL - x
			s.hit(0, yc, in[0])
		}
	case s.BallVX > 0 && px <= FaceR && x > FaceR:
		if yc := cross(px, py, x, y, FaceR); s.covers(1, yc) {
			x = 2*FaceR - x
			s.hit(1, yc, in[1])
		}
	}
	s.BallX, s.BallY = x, y
	// Out: a point to the other side.
	switch {
	case x < 0:
		s.point(1)
	case x >= CourtW:
		s.point(0)
	}
}

// cross is the ball's height where the segment from (px, py) to (x, y)
// crosses the vertical line at face.
func cross(px, py, x, y, face int32) int32 {
	dx := x - px
	if dx == 0 {
		return y
	}
	return py + (y-py)*(face-px)/dx
}

// covers reports whether side p's paddle reaches height y (with half a
// cell of grace at each end).
func (s *State) covers(p int, y int32) bool {
	top := s.PaddleY[p]
	return y >= top-Sub/2 && y < top+PaddleH+Sub/2
}

// hit returns the ball off side p's paddle: faster, with an angle set by
// where it struck the paddle and by the paddle's motion.
func (s *State) hit(p int, y int32, in Input) {
	s.Rally++
	vx := s.BallVX
	if vx < 0 {
		vx = -vx
	}
	vx = min(vx+vx/12+1, MaxVX)
	if p == 1 {
		vx = -vx
	}
	s.BallVX = vx
	off := y - (s.PaddleY[p] + PaddleH/2) // -PaddleH/2-Sub/2 .. PaddleH/2+Sub/2
	vy := off * MaxVY / (PaddleH/2 + Sub/2)
	switch in & (InputUp | InputDown) {
	case InputUp:
		vy -= Sub / 8
	case InputDown:
		vy += Sub / 8
	}
	s.BallVY = max(-MaxVY, min(vy, MaxVY))
}

// point scores for side p and sets up the next serve, or ends the match.
func (s *State) point(p int) {
	s.Score[p]++
	s.park()
	s.Server = uint8(1 - p) // serve towards the side that lost the point
	if s.Score[p] >= WinScore {
		s.Winner = uint8(p + 1)
		s.Wins[p]++
		s.Wait = NextMatch
		return
	}
	s.Wait = ServeWait
}

// Bot returns the input a computer player on side p gives for state s.
// It aims for where the ball will meet its face, with an error that
// grows with the rally, and waits at the centre while the ball moves
// away; fast balls beat it now and then. It reads only s, so two peers
// running the same bot on the same state agree.
func Bot(s *State, p int) Input {
	target := int32(CourtH / 2)
	face, toward := int32(FaceL), s.BallVX < 0
	if p == 1 {
		face, toward = FaceR, s.BallVX > 0
	}
	if toward && s.Wait == 0 && s.Winner == 0 {
		target = intercept(s.BallX, s.BallY, s.BallVX, s.BallVY, face)
		// A deterministic aiming error, different each rally and side:
		// up to ±(0.5 + rally/2) cells, so long rallies end.
		h := uint32(s.Rally)*0x9E3779B1 ^ uint32(p+1)*0x85EBCA77 ^ uint32(s.Score[0])<<8 ^ uint32(s.Score[1])
		h ^= h >> 15
		h *= 0x2C1B3C6D
		h ^= h >> 12
		spread := Sub/2 + s.Rally*Sub/2
		target += int32(h%uint32(2*spread+1)) - spread
	}
	centre := s.PaddleY[p] + PaddleH/2
	switch {
	case centre < target-Sub/4:
		return InputDown
	case centre > target+Sub/4:
		return InputUp
	}
	return 0
}

// intercept is the height at which a ball at (x, y) moving (vx, vy) per
// frame reaches the vertical line at face, bouncing off the walls.
func intercept(x, y, vx, vy, face int32) int32 {
	if vx == 0 {
		return y
	}
	frames := (face - x) / vx
	if frames < 0 {
		return y
	}
	y += vy * frames
	// Fold the straight-line height back into the court.
	period := int32(2 * (CourtH - 1))
	y %= period
	if y < 0 {
		y += period
	}
	if y >= CourtH {
		y = period - y
	}
	return y
}
