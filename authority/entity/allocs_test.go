package entity

import (
	"testing"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/stretchr/testify/require"
)

// Steady state: entities move, viewers walk, entities enter and leave;
// neither the host nor the clients allocate, whether the game names what
// it moved (HostConfig.Changed, with interest asked every other tick) or
// not.
func TestAllocsPerTick(t *testing.T) {
	t.Run("every entity encoded", func(t *testing.T) { testAllocsPerTick(t, false) })
	t.Run("Changed", func(t *testing.T) { testAllocsPerTick(t, true) })
}

func testAllocsPerTick(t *testing.T, fed bool) {
	w := newWorld(2048)
	const clients = 8
	w.viewers = make([][2]int16, clients)
	cfg := HostConfig{Capacity: 2048, Size: 4, Encode: w.encode, Interest: w.interest, Linger: 5}
	tick := 0
	if fed {
		cfg.InterestEvery = 2
		cfg.Changed = func(dst []int32) []int32 {
			for i := range w.slots {
				if (i+tick)%5 == 0 {
					dst = append(dst, int32(i))
				}
			}
			return dst
		}
	}
	h, err := NewHost(cfg)
	require.NoError(t, err)
	var cs []*Client
	var ids []int
	for range clients {
		c, err := NewClient(ClientConfig{Capacity: 2048, Size: 4})
		require.NoError(t, err)
		cs, ids = append(cs, c), append(ids, h.AddClient())
	}
	buf, abuf := make([]byte, 0, 1500), make([]byte, 0, 64)
	step := func() {
		tick++
		w.moveSome(tick, 5)
		for i := range w.viewers { // back and forth, so the sets reach their largest
			x := tick % 200
			if x > 100 {
				x = 200 - x
			}
			w.viewers[i] = [2]int16{int16(x + 3*i), int16(10 * i)}
		}
		h.Tick(w.slots)
		for i, c := range cs {
			if b := h.Append(buf[:0], ids[i]); len(b) > 0 {
				if err := c.Receive(b); err != nil {
					t.Fatal(err)
				}
			}
			if err := h.Receive(ids[i], c.AppendAck(abuf[:0])); err != nil {
				t.Fatal(err)
			}
		}
	}
	for range 800 { // grow every buffer to its largest
		step()
	}
	allocs.RequireZero(t, 400, step, "a tick of %d clients", clients)
	require.NotZero(t, h.Stats(ids[0]).Records)
}

// A grid whose entities move every tick, some across cells, and a
// query into a reused buffer: neither allocates once laid out.
func TestGridAllocsPerTick(t *testing.T) {
	const n = 2000
	g := NewGrid(10, n)
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = float32(i%50)*4, float32(i/50)*4
		g.Insert(i, xs[i], ys[i])
	}
	dst := make([]int32, 0, n)
	tick := 0
	step := func() {
		tick++
		for i := range xs {
			if (i+tick)%10 == 0 {
				xs[i] += float32(tick%3 - 1)
				ys[i] += float32(tick%5 - 2)
			}
			g.Insert(i, xs[i], ys[i])
		}
		for q := range 8 {
			dst = g.AppendNear(dst[:0], float32(q*20), float32(q*15), 12)
		}
	}
	for range 100 {
		step()
	}
	allocs.RequireZero(t, 200, step, "a tick of moves and queries")
	require.NotEmpty(t, dst)
}
