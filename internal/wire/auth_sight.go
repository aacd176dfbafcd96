package wire

import "encoding/binary"

// A Sight says what a client drew of the host's world when it made one
// frame's input g: the render time T at which it drew the entities it
// does not control, and the two host states it blended there (lag
// compensation). Relative to g, so that a steady render clock codes as
// zeros frame to frame:
//
//	Lag   u16 LE: g - T in 256ths of a frame; NoSight (0xffff) says the
//	      client drew no host state (then Down and Gap are 0)
//	Down  u8: From = floor(T) - Down, the older state drawn (the newest
//	      the client held at or before T)
//	Gap   u8: To = From + Gap, the newer state drawn; 0: From alone
//
// SightLen bytes on the wire, in that order. The blend is (T - From) /
// (To - From), exact in 256ths of a frame.
type Sight struct {
	Lag       uint16
	Down, Gap uint8
}

// SightLen is the encoded size of one Sight.
const SightLen = 4

// NoSight is a Sight's Lag when the client drew no host state.
const NoSight = 0xffff

// sightsFlag is the bit of an AuthInput's slots byte that says sights
// follow the inputs.
const sightsFlag = 0x80

// Valid reports whether s is canonical and consistent: NoSight with Down
// and Gap 0, and T before To when there is a To (Down < Gap).
func (s Sight) Valid() bool {
	if s.Lag == NoSight {
		return s.Down == 0 && s.Gap == 0
	}
	return s.Gap == 0 || s.Down < s.Gap
}

// AppendSight appends s's SightLen bytes to b.
func AppendSight(b []byte, s Sight) []byte {
	b = binary.LittleEndian.AppendUint16(b, s.Lag)
	return append(b, s.Down, s.Gap)
}

// SightAt reads the k-th Sight of an AuthInput's Sights.
func SightAt(sights []byte, k int) Sight {
	o := k * SightLen
	return Sight{Lag: binary.LittleEndian.Uint16(sights[o:]), Down: sights[o+2], Gap: sights[o+3]}
}

// checkSights reports ErrMalformed when a sight of b is not Valid.
func checkSights(b []byte) error {
	for k := range len(b) / SightLen {
		if !SightAt(b, k).Valid() {
			return ErrMalformed
		}
	}
	return nil
}
