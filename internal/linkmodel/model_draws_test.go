package linkmodel

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// eagerNext is Model.Next as it was before draws whose setting is off were
// skipped: every draw taken from the generator in turn.
func eagerNext(m *Model) Fate {
	r := &m.rng
	burst, loss, dl, dup, dupDelay, reorder := r.float(), r.float(), r.float(), r.float(), r.float(), r.float()
	c := &m.link
	lossP := c.Loss
	if m.bad {
		lossP = c.BurstLoss
	}
	if c.BurstEnter > 0 {
		if m.bad {
			m.bad = burst >= c.BurstLeave
		} else {
			m.bad = burst < c.BurstEnter
		}
	}
	if loss < lossP {
		return Fate{Lost: true}
	}
	f := Fate{Delay: delay(c, dl)}
	if reorder < c.Reorder {
		f.Delay += c.ReorderDelay
	}
	if dup < c.Duplicate {
		f.Duplicate, f.DuplicateDelay = true, delay(c, dupDelay)
	}
	return f
}

// TestModelSkipsDrawsExactly: the fates of Next, which computes only the
// draws its link uses, are those of taking every draw in turn, on links
// with each setting on and off, and so is the generator's state after
// them; drawsStep is draws × golden.
func TestModelSkipsDrawsExactly(t *testing.T) {
	g := uint64(golden)
	require.Equal(t, uint64(drawsStep), uint64(draws)*g)
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(p float64) float64 {
		if rng.IntN(2) == 0 {
			return 0
		}
		return p
	}
	for range 200 {
		l := Link{Latency: time.Duration(rng.IntN(100)) * time.Millisecond, Loss: pick(0.2),
			Duplicate: pick(0.3), Reorder: pick(0.3)}
		l.Jitter = time.Duration(pick(1) * float64(l.Latency) * rng.Float64())
		if rng.IntN(2) == 0 {
			l.BurstEnter, l.BurstLeave, l.BurstLoss = 0.1, 0.3, pick(0.8)
		}
		l, err := l.Validate()
		require.NoError(t, err)
		lazy := New(l, rng.Uint64())
		eager := lazy
		for i := range 500 {
			if i%50 == 7 {
				lazy.Skip()
				for range draws { // the old Skip: every draw taken, the burst state kept
					eager.rng.float()
				}
				require.Equal(t, eager.rng, lazy.rng)
				continue
			}
			require.Equal(t, eagerNext(&eager), lazy.Next(), "link %+v, datagram %d", l, i)
			require.Equal(t, eager.rng, lazy.rng)
			require.Equal(t, eager.bad, lazy.bad)
		}
	}
}
