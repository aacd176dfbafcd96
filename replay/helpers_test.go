package replay

import (
	"math/bits"
	"testing"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/race"
)

// world is the recordings' test state (session's test world): a PRNG and
// accumulators that mix every input strongly, so any wrong input on any
// frame shows in the checksum.
type world struct {
	R     rollnet.Rand
	Acc   [8]uint32
	Frame int32
	_     [4]byte
}

//go:noinline
func simWorld(w *world, in []uint16, f rollnet.Frame) {
	for p, v := range in {
		a := &w.Acc[p%8]
		*a = bits.RotateLeft32(*a^(uint32(v)+1)*0x9e3779b1, 7) + uint32(p+1)*0x85ebca6b
	}
	x := uint32(w.R.Uint64())
	for i := range w.Acc {
		w.Acc[i] += w.Acc[(i+1)%8] ^ x
		x = bits.RotateLeft32(x, 5)
	}
	w.Frame = int32(f)
}

func skipUnderRace(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
}
