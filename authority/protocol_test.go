package authority

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/codec"
	"github.com/rollnet/rollnet/internal/link"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/transport/local"
)

// appendV1Fragment is protocol 1's state fragment of a whole protocol-1
// body (rollnet.Frame+1, Base+1, InputAck+1, Depth, Rate, Players, Size, the raw
// inputs, the state's size, the checksum, the coded state), as an old
// host sent it.
func appendV1Fragment(b []byte, seq uint16, msg uint32, frame int32, inputs []byte, players, size int, state []byte) []byte {
	b = append(b, byte(codec.Version<<4|byte(codec.TypeStateFragment)), byte(seq), byte(seq>>8))
	b = binary.AppendUvarint(b, uint64(msg))
	b = append(b, 0, 1)
	b = binary.AppendUvarint(b, uint64(frame)+1)
	b = append(b, 0) // full
	b = binary.AppendUvarint(b, uint64(frame)+1)
	b = append(b, 0, 0, byte(players), byte(size))
	b = append(b, inputs...)
	b = binary.AppendUvarint(b, uint64(len(state)))
	b = binary.LittleEndian.AppendUint32(b, rollback.Checksum(state))
	b = append(b, byte(len(state)-1)<<1|1) // one literal (states under 64 bytes here)
	return append(b, state...)
}

// The state body's layout changed with protocol 2, which is in the
// settings hash a Hello carries. An old client (protocol 1) is refused
// at its Hello: counted (HellosRefused), never answered, so no body of
// the new layout reaches it. And an old host's fragment reaching a new
// client is not taken for a state: it does not decode as one.
func TestOldProtocolRefused(t *testing.T) {
	c := newCluster(t, clusterOpts{seed: 90, players: 2, link: local.Link{Latency: 10 * time.Millisecond}})
	a := c.add("a", ClientConfig{}, mash(1, 3))
	c.run(time.Second)
	require.True(t, a.c.Synchronized())

	old, err := c.net.Endpoint("old")
	require.NoError(t, err)
	n := &c.h.s.net
	v1 := link.SettingsHash(1, uint64(c.h.s.players), uint64(c.h.stateSize), uint64(c.h.inputSize), uint64(n.FrameRate), n.Game)
	require.NotEqual(t, c.h.Settings(), v1, "the protocol is in the hash")
	refused := c.h.Stats().HellosRefused
	for k := range 30 {
		require.NoError(t, old.Send("host", codec.Hello{Seq: uint16(k), Settings: v1, Nonce: 11}.Append(nil)))
		c.run(tick)
	}
	c.run(100 * time.Millisecond)
	got, _ := drain(old)
	require.Zero(t, got, "an old client gets no answer")
	require.Equal(t, refused+30, c.h.Stats().HellosRefused)
	require.Equal(t, uint64(1), c.h.Stats().Joined)

	// An old host's state, as if from the host, with a plausible
	// sequence number and a valid checksum of another world.
	var w world
	w.H = 12345
	st := a.c.Stats()
	hc := c.h.clients[c.record("a")]
	for k := range 20 {
		p := appendV1Fragment(nil, hc.l.Seq()+uint16(k), uint32(1000+k), int32(a.c.newestHost)+1, []byte{1, 0, 2, 0}, 2, 2, rollback.BytesOf(&w))
		require.NoError(t, c.hep.Send("a", p))
	}
	c.run(time.Second) // the cluster checks every state a applies against the host's
	after := a.c.Stats()
	require.Equal(t, st.Mismatches, after.Mismatches, "no foreign state taken")
	require.True(t, a.c.Synchronized())
}
