package rollnet

// Rand is a deterministic pseudo-random generator whose whole state is one
// pointer-free value, so it lives inside the simulation state S: it is
// committed, rolled back and checksummed with everything else, and a
// simulation never needs math/rand (whose global state is per process and
// is not rolled back).
//
// It is SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom
// number generators", OOPSLA 2014): the state advances by a fixed odd
// constant and each output is a bijective mix of the new state, so every
// state, zero included, has period 2^64 and never gets stuck. It passes
// BigCrush. It is not cryptographic.
//
// The zero Rand is ready to use; seed it with NewRand or by setting S.
type Rand struct {
	S uint64
}

// NewRand returns a Rand seeded with seed.
func NewRand(seed uint64) Rand { return Rand{S: seed} }

// Uint64 returns a pseudo-random 64-bit value.
func (r *Rand) Uint64() uint64 {
	r.S += 0x9e3779b97f4a7c15
	z := r.S
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Uint32 returns a pseudo-random 32-bit value.
func (r *Rand) Uint32() uint32 { return uint32(r.Uint64() >> 32) }

// Uint32N returns a pseudo-random value in [0, n); n must be > 0 (it
// panics otherwise). It is unbiased (Lemire's multiply-and-reject).
func (r *Rand) Uint32N(n uint32) uint32 {
	if n == 0 {
		panic("session: Rand.Uint32N with n == 0")
	}
	m := uint64(r.Uint32()) * uint64(n)
	if low := uint32(m); low < n {
		thresh := -n % n
		for low < thresh {
			m = uint64(r.Uint32()) * uint64(n)
			low = uint32(m)
		}
	}
	return uint32(m >> 32)
}

// Int32N returns a pseudo-random value in [0, n); n must be > 0 (it panics
// otherwise).
func (r *Rand) Int32N(n int32) int32 {
	if n <= 0 {
		panic("session: Rand.Int32N with n <= 0")
	}
	return int32(r.Uint32N(uint32(n)))
}

// Float64 returns a pseudo-random value in [0, 1), from 53 random bits: the
// same on every machine.
func (r *Rand) Float64() float64 { return float64(r.Uint64()>>11) / (1 << 53) }

// Bool returns a pseudo-random bool.
func (r *Rand) Bool() bool { return r.Uint64()&1 != 0 }
