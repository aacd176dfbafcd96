package authority

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// bigWorld is a 64 KiB state whose bytes do not compress: every frame
// stirs a few words, so deltas stay small once a full state arrived.
type bigWorld struct {
	W [16384]uint32
}

func simBig(w *bigWorld, in []uint16, f rollnet.Frame) {
	x := uint32(f)*2654435761 + uint32(in[0])
	for k := range 8 {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		w.W[x%uint32(len(w.W))] = x + uint32(k)
	}
}

// A 64 KiB state over a 10%-loss link arrives whole: 56 fragments, the
// missing ones asked for by Nack; the host resends each at most once per
// Nack and answers at most three Nacks per state.
func TestBigStateOverLoss(t *testing.T) {
	clock := local.NewClock(epoch)
	n, err := local.NewNetwork(local.Config{Seed: 41, Now: clock.Now, QueueLen: 2048,
		Link: local.Link{Latency: 40 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.10}})
	require.NoError(t, err)
	hep, err := n.Endpoint("host")
	require.NoError(t, err)
	cep, err := n.Endpoint("c")
	require.NoError(t, err)
	seed := uint64(1)
	rnd := func() uint64 { seed = seed*6364136223846793005 + 1442695040888963407; return seed }
	net := rollnet.NetConfig{Now: clock.Now, Tuning: rollnet.NetTuning{Rand: rnd}}
	h, err := NewHost[bigWorld, uint16](HostConfig[uint16]{Players: 1, StateInterval: 8, Net: net}, transport.Transport(hep), simBig)
	require.NoError(t, err)
	for i := range h.State().W {
		h.State().W[i] = uint32(rnd())
	}
	cl, err := NewClient[bigWorld, uint16](ClientConfig{Host: "host", Players: 1, Net: net}, cep, simBig)
	require.NoError(t, err)

	for range 10 * 60 {
		clock.Advance(tick)
		require.NoError(t, h.AdvanceFrame())
		require.NoError(t, cl.AdvanceFrame())
	}
	st := cl.Stats()
	hs := h.Clients(nil)[0]
	t.Logf("client %+v\nhost view %+v", st, hs)
	require.True(t, st.Synchronized, "a whole 64 KiB state arrived")
	require.NotZero(t, st.NacksSent)
	require.NotZero(t, st.FragmentsRepaired)
	frags := fragmentCount(wire.MaxStateBody) // the most any body has
	require.LessOrEqual(t, hs.NacksServed, 3*hs.StatesSent)
	require.LessOrEqual(t, hs.FragmentsResent, uint64(3*frags)*hs.StatesSent)
	s, f := cl.HostState()
	sum, err := h.ChecksumAt(f)
	require.NoError(t, err)
	_, err = h.ChecksumAt(rollnet.NoFrame)
	require.ErrorIs(t, err, ErrOutOfWindow, "no frame")
	_, err = h.ChecksumAt(h.Frame())
	require.ErrorIs(t, err, ErrOutOfWindow, "a frame not simulated yet")
	require.Equal(t, sum, rollback.Checksum(rollback.BytesOf(s)))
}

// Forged fragments cannot hold the reassembler: two halves of bodies
// numbered far ahead, never completed, give their slots up after
// staleTicks; a body numbered far ahead that completed but never verified
// moves nothing (the caller does not finish it), and one that did leaves
// the host's bodies, far behind it, new again.
func TestReassemblerForgedNumbers(t *testing.T) {
	r := newReassembler(wire.MaxStateBody)
	half := make([]byte, wire.MaxChunk)
	real := func(msg uint32, now int64) *assembly {
		a, bad := r.add(wire.StateFragment{Msg: msg, Count: 1, Chunk: []byte{1}}, now)
		require.False(t, bad)
		return a
	}
	require.NotNil(t, real(5, 0))
	r.finish(&r.slots[0])
	for _, m := range []uint32{1 << 30, 1<<30 + 1} {
		a, bad := r.add(wire.StateFragment{Msg: m, Count: 2, Chunk: half}, 1)
		require.False(t, bad)
		require.Nil(t, a)
	}
	require.Nil(t, real(6, 2), "both slots held by the forged halves, newer by number")
	a := real(7, 2+staleTicks+1)
	require.NotNil(t, a, "a stale slot given up")
	r.finish(a)
	f := real(1<<31, 100) // far ahead, completed and taken
	r.finish(f)
	require.NotNil(t, real(8, 101), "the host's next body is new again")
	require.Nil(t, real(1<<31-3, 102), "just behind the newest taken: done with")
}
