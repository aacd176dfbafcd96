package ponggame

import (
	"encoding/binary"
	"reflect"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/rollback"
)

// sum is the CRC32-C of the state's bytes, as a session checksums it.
func sum(s *State) uint32 { return rollback.Checksum(rollback.BytesOf(s)) }

// inputStream is a small deterministic input generator for tests.
type inputStream uint32

func (r *inputStream) next() Input {
	x := uint32(*r)
	x ^= x << 13
	x ^= x >> 17
	x ^= x << 5
	*r = inputStream(x)
	return Input(x>>7) & (InputUp | InputDown)
}

func TestStateIsPlainBytes(t *testing.T) {
	var s State
	require.Equal(t, int(unsafe.Sizeof(s)), binary.Size(s), "State must have no compiler padding")
	require.Equal(t, uintptr(0), unsafe.Sizeof(s)%8)
	require.NoError(t, rollback.CheckType(reflect.TypeFor[State]()))
}

func TestStepIsDeterministic(t *testing.T) {
	run := func() []uint32 {
		s := NewState(42)
		r := inputStream(7)
		var sums []uint32
		for f := range 20000 {
			in := [2]Input{r.next(), Bot(&s, 1)}
			if f%3 == 0 {
				in[0] = Bot(&s, 0)
			}
			Step(&s, in)
			sums = append(sums, sum(&s))
		}
		return sums
	}
	a, b := run(), run()
	require.Equal(t, a, b)
	// And the states did not sit still: the game moved.
	seen := map[uint32]bool{}
	for _, v := range a {
		seen[v] = true
	}
	require.Greater(t, len(seen), 10000)
}

func TestDifferentSeedsServeDifferently(t *testing.T) {
	angles := map[int32]bool{}
	for seed := uint32(1); seed <= 8; seed++ {
		s := NewState(seed)
		for range ServeWait {
			Step(&s, [2]Input{})
		}
		require.NotZero(t, s.BallVX)
		require.NotZero(t, s.BallVY)
		angles[s.BallVY] = true
	}
	require.Greater(t, len(angles), 4)
}

// TestBallStaysInCourt plays random and bot inputs and checks the ball and
// paddles never leave the court, and speeds stay within their caps.
func TestBallStaysInCourt(t *testing.T) {
	for seed := uint32(1); seed <= 8; seed++ {
		s := NewState(seed)
		r := inputStream(seed * 31)
		for f := range 30000 {
			in := [2]Input{r.next(), r.next()}
			if seed%2 == 0 {
				in[1] = Bot(&s, 1)
			}
			Step(&s, in)
			if !inCourt(&s) {
				t.Fatalf("seed %d frame %d: out of court: %+v", seed, f, s)
			}
		}
	}
}

func inCourt(s *State) bool {
	ok := s.BallY >= 0 && s.BallY < CourtH && s.BallX >= 0 && s.BallX < CourtW &&
		abs(s.BallVX) <= MaxVX && abs(s.BallVY) <= MaxVY
	for p := range 2 {
		ok = ok && s.PaddleY[p] >= 0 && s.PaddleY[p] <= CourtH-PaddleH
	}
	return ok
}

func abs(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

// TestScoring: a paddle out of the way concedes; the point goes to the
// other side and the next serve goes towards the side that lost it.
func TestScoring(t *testing.T) {
	s := NewState(3)
	s.Wait = 1
	s.Server = 0 // the serve goes left
	Step(&s, [2]Input{})
	require.Negative(t, s.BallVX)
	// Left paddle runs to the corner the ball is not heading for.
	away := InputDown
	if s.BallVY > 0 {
		away = InputUp
	}
	for f := 0; s.Score == [2]uint8{}; f++ {
		require.Less(t, f, 1000, "no point scored")
		Step(&s, [2]Input{away, 0})
	}
	require.Equal(t, [2]uint8{0, 1}, s.Score)
	require.Equal(t, uint8(0), s.Server)
	require.Equal(t, int32(ServeWait), s.Wait)
	require.Equal(t, int32(CourtW/2), s.BallX)
}

// TestPaddleReturnsBall: a paddle in the ball's path sends it back,
// faster.
func TestPaddleReturnsBall(t *testing.T) {
	s := NewState(5)
	s.Wait = 0
	s.BallX, s.BallY = FaceL+Sub, CourtH/2
	s.BallVX, s.BallVY = -ServeVX, 0
	s.PaddleY[0] = CourtH/2 - PaddleH/2
	for range 4 {
		Step(&s, [2]Input{})
	}
	require.Positive(t, s.BallVX)
	require.Greater(t, s.BallVX, int32(ServeVX))
	require.Equal(t, int32(1), s.Rally)
	require.GreaterOrEqual(t, s.BallX, int32(FaceL))
}

// TestBallSpeedsUpOnRallies: each return is faster, up to the cap.
func TestBallSpeedsUpOnRallies(t *testing.T) {
	s := NewState(9)
	s.BallVX = -ServeVX
	prev := int32(ServeVX)
	for range 40 {
		s.hit(0, s.PaddleY[0]+PaddleH/2, 0)
		require.GreaterOrEqual(t, abs(s.BallVX), prev)
		prev = abs(s.BallVX)
	}
	require.Equal(t, int32(MaxVX), prev)
}

// TestMatchToEleven: 11 points win; after a pause a new match starts with
// the tally kept.
func TestMatchToEleven(t *testing.T) {
	s := NewState(11)
	for range WinScore - 1 {
		s.point(0)
		require.Zero(t, s.Winner)
	}
	s.point(0)
	require.Equal(t, uint8(1), s.Winner)
	require.Equal(t, [2]uint8{1, 0}, s.Wins)
	for range NextMatch {
		Step(&s, [2]Input{})
	}
	require.Zero(t, s.Winner)
	require.Equal(t, [2]uint8{}, s.Score)
	require.Equal(t, int32(1), s.Matches)
	require.Equal(t, [2]uint8{1, 0}, s.Wins)
}

// TestBotWinsPointsSometimes: two bots both score, and a match ends; a bot
// beats an idle player; a bot loses points to a bot.
func TestBotWinsPointsSometimes(t *testing.T) {
	for seed := uint32(1); seed <= 4; seed++ {
		s := NewState(seed)
		for f := 0; s.Matches == 0; f++ {
			require.Less(t, f, 60*60*10, "seed %d: a bot-vs-bot match lasted over 10 minutes", seed)
			Step(&s, [2]Input{Bot(&s, 0), Bot(&s, 1)})
			if s.Winner != 0 {
				loser := 2 - s.Winner
				require.Positive(t, s.Score[loser], "seed %d: a bot never scored", seed)
			}
		}
	}
	// Against an idle paddle the bot wins the match.
	s := NewState(1)
	for s.Winner == 0 {
		Step(&s, [2]Input{0, Bot(&s, 1)})
	}
	require.Equal(t, uint8(2), s.Winner)
}

// TestBotRallies: a bot returns the ball, so a point is not just a serve.
func TestBotRallies(t *testing.T) {
	s := NewState(1)
	var longest int32
	for range 60 * 60 {
		Step(&s, [2]Input{Bot(&s, 0), Bot(&s, 1)})
		longest = max(longest, s.Rally)
	}
	require.GreaterOrEqual(t, longest, int32(4))
}

func TestInterceptFoldsIntoCourt(t *testing.T) {
	for _, vy := range []int32{-MaxVY, -Sub / 3, 0, Sub / 5, MaxVY} {
		y := intercept(CourtW/2, CourtH/3, -ServeVX, vy, FaceL)
		require.GreaterOrEqual(t, y, int32(0))
		require.Less(t, y, int32(CourtH))
	}
	// Straight across, no bounce.
	require.Equal(t, int32(CourtH/3), intercept(CourtW/2, CourtH/3, -ServeVX, 0, FaceL))
}

func BenchmarkStep(b *testing.B) {
	b.ReportAllocs()
	s := NewState(1)
	for b.Loop() {
		Step(&s, [2]Input{Bot(&s, 0), Bot(&s, 1)})
	}
}

// BenchmarkChecksumState is the baseline for BenchmarkStep: what a session
// spends hashing the state it commits after each step.
func BenchmarkChecksumState(b *testing.B) {
	b.ReportAllocs()
	s := NewState(1)
	b.SetBytes(int64(unsafe.Sizeof(s)))
	for b.Loop() {
		s.BallX = int32(sum(&s))
	}
}
