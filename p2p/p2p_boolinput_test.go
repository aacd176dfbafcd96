package p2p

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/testkit"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// boolIn is an input with a bool: bytes other than 0 and 1 there are no
// input at all.
type boolIn struct {
	Fire bool
	Dir  uint8
}

// TestP2PBoolInputChecked: an Input whose inputs carry a bool byte of 2 is
// counted malformed and its frame not taken; the same packet with a 1 is
// taken (the check runs only for input types with a bool, which uint16 is
// not).
func TestP2PBoolInputChecked(t *testing.T) {
	clock, nw := testkit.NewNet(t, local.Config{Seed: 3, Link: local.Link{Latency: 10 * time.Millisecond}})
	sim := func(w *p2pWorld, in []boolIn, f rollnet.Frame) {
		for p, v := range in {
			w.Acc[p] = w.Acc[p]*31 + uint32(v.Dir)
			if v.Fire {
				w.Acc[p]++
			}
		}
		w.Frame = int32(f)
	}
	var peers [2]*Session[p2pWorld, boolIn]
	var eps [2]local.Endpoint
	for i := range peers {
		var err error
		eps[i], err = nw.Endpoint([]string{"p0", "p1"}[i])
		require.NoError(t, err)
		remote := []transport.Peer{"p0", "p1"}
		remote[i] = ""
		peers[i], err = New[p2pWorld](Config[boolIn]{Session: session.Config[boolIn]{Players: 2, InputDelay: 2, Capacity: 32},
			Remote: remote, Net: rollnet.NetConfig{Now: clock.Now, Tuning: rollnet.NetTuning{Rand: rand.New(rand.NewPCG(3, uint64(i))).Uint64}}}, eps[i], sim)
		require.NoError(t, err)
	}
	tick := func() {
		clock.Advance(time.Second / 60)
		for i, p := range peers {
			require.NoError(t, p.AddLocalInput(i, boolIn{Fire: true, Dir: 3}))
			if err := p.AdvanceFrame(); err != nil {
				require.ErrorIs(t, err, ErrNotSynchronized)
			}
		}
	}
	for range 120 {
		tick()
	}
	require.True(t, peers[0].Running())
	p0 := peers[0]
	forge := func(fire byte) (malformed uint64, heard rollnet.Frame) {
		// From p1's own endpoint, with its next sequence number: only the
		// content is wrong. The frame after the newest p1 sent (its last
		// packet, in flight, arrives first), so that it would be taken.
		l := peers[1].ep.Links()[0]
		next := peers[1].newest + 1
		m := wire.Input{Seq: l.Seq(), Ack: int32(p0.newest), Start: int32(next), Frames: 1, Players: 0b10, Size: 2,
			Inputs: []byte{fire, 5}}
		require.NoError(t, eps[1].Send("p0", m.Append(nil)))
		clock.Advance(20 * time.Millisecond)
		require.NoError(t, p0.Poll())
		st, err := p0.PeerStats("p1")
		require.NoError(t, err)
		return st.Malformed, p0.recv[1]
	}
	before, _ := p0.PeerStats("p1")
	heard := peers[1].newest
	malformed, after := forge(2)
	require.Equal(t, before.Malformed+1, malformed, "a bool byte of 2 is malformed")
	require.Equal(t, heard, after, "and its frame not taken")
	malformed, after = forge(1)
	require.Equal(t, before.Malformed+1, malformed, "a bool byte of 1 is an input")
	require.Equal(t, heard+1, after)
}
