package linkmodel

// rng is splitmix64 (Steele, Lea and Flood, 2014): one uint64 of state, a
// full-period 2^64 sequence that passes BigCrush. Each link direction owns
// one, seeded from the network seed and the two endpoint names, so traffic on
// one link never shifts another link's randomness.
type rng struct{ s uint64 }

// golden is splitmix64's increment.
const golden = 0x9e3779b97f4a7c15

func (r *rng) next() uint64 {
	r.s += golden
	return mix64(r.s)
}

func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// float returns a uniform float64 in [0, 1) with 53 random bits.
func (r *rng) float() float64 {
	return float64(r.next()>>11) * (1.0 / (1 << 53))
}

// fnv64 is FNV-1a over s, for deriving per-link seeds from endpoint names.
func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
