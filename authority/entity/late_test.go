package entity

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// An ack that arrives late for an update sent to an entity's earlier
// entry (it left, and entered again since) must not count for the new
// entry: the client skipped that update as older than the leave.
func TestLateAckOfAnEarlierEntryIsNotTheNewEntrys(t *testing.T) {
	w := newWorld(64)
	w.viewers = [][2]int16{{0, 0}}
	h, err := NewHost(HostConfig{Capacity: 64, Size: 4, Encode: w.encode, Interest: w.interest, Linger: 1})
	require.NoError(t, err)
	c, err := NewClient(ClientConfig{Capacity: 64, Size: 4})
	require.NoError(t, err)
	id := h.AddClient()
	send := func() []byte {
		h.Tick(w.slots)
		return h.Append(nil, id)
	}
	first := send() // entered: held back by the wire
	require.NotEmpty(t, first)
	w.viewers[0] = [2]int16{1000, 1000}
	var leaves [][]byte
	for range 4 {
		if b := send(); len(b) > 0 {
			leaves = append(leaves, b)
		}
	}
	require.NotEmpty(t, leaves)
	for _, b := range leaves {
		require.NoError(t, c.Receive(b))
	}
	require.NoError(t, h.Receive(id, c.AppendAck(nil))) // the leaves acked: the entries are forgotten
	require.Zero(t, h.Stats(id).Tracked)
	w.viewers[0] = [2]int16{0, 0}
	require.NotEmpty(t, send()) // entered again: held back too
	require.NoError(t, c.Receive(first))
	require.Zero(t, c.Stats().Entities, "the late update was older than the leaves")
	require.NoError(t, h.Receive(id, c.AppendAck(nil)))
	require.Zero(t, h.Stats(id).Mismatches)
	require.Zero(t, h.Stats(id).Entities)
}

func TestGridAgreesWithBruteForce(t *testing.T) {
	g := NewGrid(7, 500)
	xs, ys := make([]float32, 500), make([]float32, 500)
	r := uint64(3)
	for i := range xs {
		r ^= r << 13
		r ^= r >> 7
		r ^= r << 17
		xs[i], ys[i] = float32(r%2000)/10-100, float32(r>>20%2000)/10-100
		g.Insert(i, xs[i], ys[i])
	}
	for _, q := range [][3]float32{{0, 0, 10}, {-100, 50, 30}, {99, 99, 3}, {0, 0, 500}} {
		got := map[int32]bool{}
		for _, i := range g.AppendNear(nil, q[0], q[1], q[2]) {
			require.False(t, got[i], "index %d twice", i)
			got[i] = true
		}
		for i := range xs {
			dx, dy := xs[i]-q[0], ys[i]-q[1]
			require.Equal(t, dx*dx+dy*dy <= q[2]*q[2], got[int32(i)], "index %d, query %v", i, q)
		}
	}
}

// Entities inserted again move: within their cell, to another, after a
// Clear; every query still agrees with a brute force over the present
// ones, however many moved since the grid was last laid out.
func TestGridMovesAgreeWithBruteForce(t *testing.T) {
	const n = 400
	g := NewGrid(5, n)
	xs, ys, in := make([]float32, n), make([]float32, n), make([]bool, n)
	r := uint64(7)
	next := func(m uint64) float32 {
		r ^= r << 13
		r ^= r >> 7
		r ^= r << 17
		return float32(r%m) / 10
	}
	var got []int32
	for round := range 60 {
		switch {
		case round%20 == 10: // a Clear, then some of them back
			g.Clear()
			clear(in)
			for i := 0; i < n; i += 3 {
				g.Insert(i, xs[i], ys[i])
				in[i] = true
			}
		default:
			for range 1 + round%7*10 { // a few to many moves
				i := int(next(n * 10))
				if round%2 == 0 { // a step, mostly within its cell
					xs[i], ys[i] = xs[i]+next(20)-1, ys[i]+next(20)-1
				} else {
					xs[i], ys[i] = next(1000)-50, next(1000)-50
				}
				g.Insert(i, xs[i], ys[i])
				in[i] = true
			}
		}
		for _, q := range [][3]float32{{0, 0, 10}, {-30, 20, 7}, {40, 40, 3}, {0, 0, 300}, {10, 10, 0}} {
			seen := map[int32]bool{}
			got = g.AppendNear(got[:0], q[0], q[1], q[2])
			for _, i := range got {
				require.False(t, seen[i], "index %d twice", i)
				seen[i] = true
			}
			for i := range xs {
				dx, dy := xs[i]-q[0], ys[i]-q[1]
				require.Equal(t, in[i] && dx*dx+dy*dy <= q[2]*q[2], seen[int32(i)], "round %d, index %d, query %v", round, i, q)
			}
		}
	}
}
