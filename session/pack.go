package session

import (
	"fmt"
	"math"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/codec"
)

// PackInputs appends to dst codec's plain packing of the inputs of the
// players in playerMask for the n frames ending at baseFrame, oldest
// first: [baseFrame u32 LE][playerMask u32 LE], then each frame's
// Players × the size of I bytes, every player's slot present; slots of
// players outside the mask are zero. It allocates nothing when dst has
// room (codec.InputsHeaderLen + n × Players × the size of I bytes).
//
// n is clamped to the frames the session holds (from Frame()-W, never
// before frame 0) and to the run of frames ending at baseFrame in which
// every masked player's input is confirmed; the packet says how many it
// carries by its length. baseFrame below 0 or outside the held window is
// ErrOutOfWindow; baseFrame not confirmed for every masked player is
// ErrNotConfirmed; n < 1 is ErrArgument; a mask naming a player >=
// Players is ErrPlayer. On error dst is returned unchanged.
//
// The mask is 32 bits wide, as on the wire: players 32 and above cannot be
// packed. A session packs its local players' inputs, typically ending at
// the newest local frame; sending n >= 2 makes one lost packet harmless, since
// the next one carries its frames too.
func (s *Session[S, I]) PackInputs(dst []byte, baseFrame rollnet.Frame, n int, playerMask uint32) ([]byte, error) {
	if n < 1 {
		return dst, fmt.Errorf("%w: PackInputs of %d frames", ErrArgument, n)
	}
	if s.players < 32 && playerMask>>s.players != 0 {
		return dst, fmt.Errorf("%w: mask %#x with %d players", ErrPlayer, playerMask, s.players)
	}
	lo, hi := s.acceptWindow()
	lo = max(lo, 0)
	if baseFrame < lo || baseFrame > hi {
		return dst, fmt.Errorf("%w: base frame %d (held: %d..%d)", ErrOutOfWindow, baseFrame, lo, hi)
	}
	m := uint64(playerMask)
	first := baseFrame
	for first > lo && int(baseFrame-first) < n-1 && s.confirmedAll(first-1, m) {
		first--
	}
	if !s.confirmedAll(baseFrame, m) {
		return dst, fmt.Errorf("%w: frame %d for mask %#x", ErrNotConfirmed, baseFrame, playerMask)
	}
	dst = codec.AppendInputs(dst, uint32(baseFrame), playerMask, nil)
	for f := first; f <= baseFrame; f++ {
		base := (int(f) & s.mask) * s.players
		for p := range s.players {
			if m&(1<<p) != 0 {
				dst = s.codec.append(dst, &s.inputs[base+p])
			} else {
				dst = appendZeros(dst, s.codec.size)
			}
		}
	}
	return dst, nil
}

// confirmedAll reports whether frame f is held with the inputs of every
// player in mask confirmed.
func (s *Session[S, I]) confirmedAll(f rollnet.Frame, mask uint64) bool {
	slot := int(f) & s.mask
	return s.tags[slot] == f && s.conf[slot]&mask == mask
}

// appendZeros appends n zero bytes to dst.
func appendZeros(dst []byte, n int) []byte {
	if cap(dst)-len(dst) >= n {
		dst = dst[:len(dst)+n]
		clear(dst[len(dst)-n:])
		return dst
	}
	return append(dst, make([]byte, n)...)
}

// UnpackInputs reads a plain packing (see PackInputs) and feeds each
// masked player's inputs, oldest frame first, through AddRemoteInput. It
// allocates nothing (error returns aside).
//
// A packet shorter than the header fails with an error wrapping
// codec.ErrShort; a block that is empty or not a whole number of frames,
// a base frame that leaves the first frame below 0 or does not fit a
// Frame, or an input value its type cannot hold is ErrMalformed (which
// wraps codec.ErrMalformed); a mask naming a player >= Players is
// ErrPlayer. These are checked before any input is fed. Otherwise every
// input is fed, stale ones are ignored as AddRemoteInput ignores them, and
// the first error AddRemoteInput returned (ErrOutOfWindow, a
// *ConflictError) is returned.
func (s *Session[S, I]) UnpackInputs(src []byte) error {
	base, mask, block, err := codec.ParseInputs(src)
	if err != nil {
		return fmt.Errorf("session: %w", err)
	}
	frameSize := s.players * s.codec.size
	if len(block) == 0 || len(block)%frameSize != 0 {
		return fmt.Errorf("%w: %d block bytes for %d-byte frames", ErrMalformed, len(block), frameSize)
	}
	if s.players < 32 && mask>>s.players != 0 {
		return fmt.Errorf("%w: mask %#x with %d players", ErrPlayer, mask, s.players)
	}
	frames := len(block) / frameSize
	if base > math.MaxInt32 || int64(base)-int64(frames)+1 < 0 {
		return fmt.Errorf("%w: %d frames ending at frame %d", ErrMalformed, frames, base)
	}
	// Validate every masked input before feeding any.
	var in I
	for i := range frames {
		for p := range s.players {
			if mask&(1<<p) != 0 {
				off := i*frameSize + p*s.codec.size
				if err := s.codec.decode(block[off:], &in); err != nil {
					return err
				}
			}
		}
	}
	first := rollnet.Frame(int64(base) - int64(frames) + 1)
	var firstErr error
	for i := range frames {
		for p := range s.players {
			if mask&(1<<p) == 0 {
				continue
			}
			_ = s.codec.decode(block[i*frameSize+p*s.codec.size:], &in) // checked above
			if err := s.AddRemoteInput(p, first+rollnet.Frame(i), in); err != nil && firstErr == nil {
				firstErr = err
			}
		}
	}
	return firstErr
}
