package authority

import (
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/wire"
)

// Lag compensation: a client draws what it does not control in the past,
// at its render time T (PlayoutAt), so a shot aimed at what it sees would
// miss on the host's present by that much and half a round trip more. A
// client made with NewClientLagComp stamps every input with the T it drew
// at and the two host states it blended there (a Sight); the host keeps
// its recent states, and a simulate given to NewHostLagComp asks, for a
// player's action at frame F, for the world as that player saw it
// (Sights.Of) and tests the hit there.

// DefaultMaxRewind is the MaxRewind a zero HostConfig.MaxRewind means: a
// player's sight is never older than this behind the frame it acts at.
const DefaultMaxRewind = 300 * time.Millisecond

// maxRewindFrames bounds HostConfig.MaxRewind in frames: the host keeps
// sentLen states, and a sight blends two of them.
const maxRewindFrames = sentLen - 4

// Sight is what a player saw when it made a frame's input: the host states
// after frames FromFrame and ToFrame, blended at render time T. A game
// tests a hit against the entities as it draws them there; Lerp blends a
// value as a client draws it (exactly, in integers, so host and client
// agree to the bit).
type Sight[S any] struct {
	// From and To are the host's states after FromFrame and ToFrame
	// (To == From when FromFrame == ToFrame). Read them, never write
	// them; they are valid during the simulate call that got them.
	From, To           *S
	FromFrame, ToFrame rollnet.Frame
	// T is the render time, in 256ths of a frame: between FromFrame*256
	// and ToFrame*256 (FromFrame*256 with no To).
	T int64
	// w is To's weight in 65536ths, floor(65536*num/den) of Weight.
	w int64
}

// newSight is the sight of claim cl between states a and b.
func newSight[S any](a, b *S, cl claim) Sight[S] {
	s := Sight[S]{From: a, To: b, FromFrame: cl.from, ToFrame: cl.to, T: cl.t}
	num, den := s.Weight()
	s.w = num << 16 / den
	return s
}

// Weight is To's weight in the blend, num/den (0/1 without a To): the
// fraction of the way from FromFrame to ToFrame that T lies.
func (s Sight[S]) Weight() (num, den int64) {
	if s.ToFrame <= s.FromFrame {
		return 0, 1
	}
	return s.T - int64(s.FromFrame)*256, int64(s.ToFrame-s.FromFrame) * 256
}

// Lerp blends a (a value of From) and b (its value in To) as the sight
// saw them: a + (b-a)*w>>16, w To's weight in 65536ths (Weight's num/den,
// rounded down), in 64-bit integers: the same on every machine, a
// multiply and a shift. A Sight not from Sights.Of or Client.Sight
// blends nothing (a).
func (s Sight[S]) Lerp(a, b int32) int32 {
	return a + int32((int64(b)-int64(a))*s.w>>16)
}

// Sights answers a simulate given to NewHostLagComp or NewClientLagComp:
// what each player saw when it made its input for the frame being
// simulated. It is valid during that call; it allocates nothing, and each
// question costs a lookup (a bounded cost per rewound shot).
type Sights[S any] struct {
	src   sightSource[S]
	frame rollnet.Frame
}

// sightSource is the host's or the client's history of states and sights.
type sightSource[S any] interface {
	sightOf(player int, frame rollnet.Frame) (Sight[S], bool)
}

// Frame is the frame being simulated.
func (v *Sights[S]) Frame() rollnet.Frame { return v.frame }

// Of returns what player saw when it made its input for the frame being
// simulated; ok is false when it saw the present (the host's own players),
// sent no sight (a client not made with NewClientLagComp, an input the
// host predicted) or one that no longer resolves: then test against the
// present state.
//
// On the host a sight is bounded: one older than HostConfig.MaxRewind
// behind the frame is moved up to it (HostClientStats.SightsTooOld), one
// naming a state never sent to its client down to the newest sent
// (SightsTooNew). On a client only its own players' sights are known (the
// others' are the host's to judge, and its states correct the
// prediction), unbounded: the client predicts from what it saw.
func (v *Sights[S]) Of(player int) (Sight[S], bool) {
	if v.src == nil {
		return Sight[S]{}, false
	}
	return v.src.sightOf(player, v.frame)
}

// claim is a sight in absolute frames: render time t (256ths of a frame)
// between host states from and to; from == NoFrame is none.
type claim struct {
	t        int64
	from, to rollnet.Frame
	at       rollnet.Frame // the frame it is for (the host's record of sights in effect)
}

var noClaim = claim{from: rollnet.NoFrame, to: rollnet.NoFrame, at: rollnet.NoFrame}

// claimOf reads wire sight s of input frame g; none for NoSight or a
// sight before frame 0.
func claimOf(s wire.Sight, g rollnet.Frame) claim {
	if s.Lag == wire.NoSight {
		return noClaim
	}
	t := int64(g)*256 - int64(s.Lag)
	from := rollnet.Frame(t>>8) - rollnet.Frame(s.Down)
	if t < 0 || from < 0 {
		return noClaim
	}
	return claim{t: t, from: from, to: from + rollnet.Frame(s.Gap), at: g}
}

// sightOfClaim codes c for input frame g: NoSight when it cannot be said
// (none, or further back than the wire's 255 frames).
func sightOfClaim(c claim, g rollnet.Frame) wire.Sight {
	if c.from == rollnet.NoFrame {
		return wire.Sight{Lag: wire.NoSight}
	}
	lag, down, gap := int64(g)*256-c.t, rollnet.Frame(c.t>>8)-c.from, c.to-c.from
	if lag < 0 || lag >= wire.NoSight || down < 0 || down > 255 || gap < 0 || gap > 255 || (gap > 0 && down >= gap) {
		return wire.Sight{Lag: wire.NoSight}
	}
	return wire.Sight{Lag: uint16(lag), Down: uint8(down), Gap: uint8(gap)}
}
