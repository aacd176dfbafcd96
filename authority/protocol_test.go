package authority

import (
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/codec"
	"github.com/rollnet/rollnet/internal/link"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// appendV2Fragment is protocol 2's state fragment of a whole protocol-2
// body (Count 1, then Frame, Base<<1|advice, InputAck-Frame, the checksum,
// the inputs and the state each run-length coded), as an old host sent it.
func appendV2Fragment(b []byte, seq uint16, frame int32, inputs, state []byte) []byte {
	b = append(b, byte(wire.Version<<4|byte(wire.TypeStateFragment)), byte(seq), byte(seq>>8), 1)
	b = binary.AppendUvarint(b, uint64(frame))
	b = append(b, 0, 0) // full, no advice; InputAck = Frame
	b = binary.LittleEndian.AppendUint32(b, rollback.Checksum(state))
	b = append(b, byte(len(inputs)-1)<<1|1) // one literal each (under 64 bytes here)
	b = append(b, inputs...)
	b = append(b, byte(len(state)-1)<<1|1)
	return append(b, state...)
}

// The state body's layout changed with protocol 3, which is in the
// settings hash a Hello carries, and is now in the Hello itself. An old
// client (protocol 2: its Hello ends before the protocol byte) is refused
// clearly: counted (HellosRefused), and answered with a WelcomeRefused
// naming the host's protocol, at most once a second, never a slot; no body
// of the new layout reaches it. And an old host's fragment reaching a new
// client is not taken for a state: it does not decode as one.
func TestOldProtocolRefused(t *testing.T) {
	c := newCluster(t, clusterOpts{seed: 90, players: 2, link: local.Link{Latency: 10 * time.Millisecond}})
	a := c.add("a", ClientConfig{}, mash(1, 3))
	c.run(time.Second)
	require.True(t, a.c.Synchronized())

	old, err := c.net.Endpoint("old")
	require.NoError(t, err)
	n := &c.h.s.net
	v2 := link.SettingsHash(2, uint64(c.h.s.players), uint64(c.h.stateSize), uint64(c.h.inputSize), uint64(n.FrameRate), n.Game)
	require.NotEqual(t, c.h.Settings(), v2, "the protocol is in the hash")
	hello := wire.Hello{Settings: v2, Nonce: 11, Protocol: 2}.Append(nil)
	require.Len(t, hello, wire.HeaderLen+17, "protocol 2's Hello, byte for byte")
	refused := c.h.Stats().HellosRefused
	for k := range 30 { // half a second of Hellos, as an old client retries
		hello[1] = byte(k)
		require.NoError(t, old.Send("host", hello))
		c.run(tick)
	}
	c.run(100 * time.Millisecond)
	buf := make([]byte, transport.MaxDatagram)
	var answers []wire.Welcome
	for {
		k, _, err := old.Receive(buf)
		if err != nil {
			break
		}
		w, _, err := wire.ParseWelcome(buf[:k])
		require.NoError(t, err, "an old client is sent only refusals")
		answers = append(answers, w)
	}
	require.Len(t, answers, 1, "one refusal a second, however often it says Hello")
	require.Equal(t, wire.WelcomeRefused, answers[0].Kind)
	require.Equal(t, uint64(11), answers[0].Nonce)
	require.Equal(t, uint8(Protocol), answers[0].Host.Protocol, "the refusal names the host's protocol")
	require.Equal(t, c.h.stateSize, answers[0].Host.StateSize)
	require.Equal(t, refused+30, c.h.Stats().HellosRefused)
	require.Equal(t, uint64(1), c.h.Stats().Joined)
	require.Equal(t, 1, c.h.Stats().Clients, "no record held for it")

	// An old host's state, as if from the host, with a plausible
	// sequence number and a valid checksum of another world.
	var w world
	w.H = 12345
	st := a.c.Stats()
	hc := c.h.clients[c.record("a")]
	for k := range 20 {
		p := appendV2Fragment(nil, hc.l.Seq()+uint16(k), int32(a.c.newestHost)+1, []byte{1, 0, 2, 0}, rollback.BytesOf(&w))
		_, _, err := wire.ParseStateFragment(p)
		require.ErrorIs(t, err, codec.ErrMalformed, "a count of 1 is protocol 2's")
		require.NoError(t, c.hep.Send("a", p))
	}
	c.run(time.Second) // the cluster checks every state a applies against the host's
	after := a.c.Stats()
	require.Equal(t, st.Mismatches, after.Mismatches, "no foreign state taken")
	require.GreaterOrEqual(t, after.Malformed-st.Malformed, uint64(20))
	require.True(t, a.c.Synchronized())
}

// Protocol 4 added sights to a client's inputs (lag compensation). A
// protocol-3 client, whose Hello carries its protocol and a settings hash
// of it, is refused clearly: counted, answered once with a WelcomeRefused
// naming the host's protocol (which a protocol-3 client reads, and reports
// as a *SettingsError "protocol 3 (host 5)"), no slot held.
func TestProtocol3Refused(t *testing.T) { testOldProtocolRefused(t, 3) }

// Protocol 5 added a lease to a state's advice and the host's WelcomeHold
// (HostConfig.Absence): a protocol-4 client would read neither (a state
// with advice would not decode, and it would simulate past a hold). It is
// refused as a protocol-3 one is.
func TestProtocol4Refused(t *testing.T) { testOldProtocolRefused(t, 4) }

// Protocol 6 range codes a state body's inputs and delta, where protocol
// 5 run-length coded them: a protocol-5 client could not decode a single
// state. It is refused as a protocol-4 one is, and told the host's
// protocol ("protocol 5 (host 7)").
func TestProtocol5Refused(t *testing.T) { testOldProtocolRefused(t, 5) }

// Protocol 7 codes a changed byte's position in words and the byte in its
// word, and marks a raw body by its first byte: a protocol-6 client would
// decode every state to the wrong bytes (or refuse it). It is refused at
// its Hello, as a protocol-5 one is, and told the host's protocol.
func TestProtocol6Refused(t *testing.T) { testOldProtocolRefused(t, 6) }

func testOldProtocolRefused(t *testing.T, old uint8) {
	c := newCluster(t, clusterOpts{seed: 91, players: 2, link: local.Link{Latency: 10 * time.Millisecond}})
	ep, err := c.net.Endpoint("old")
	require.NoError(t, err)
	n := &c.h.s.net
	hash := link.SettingsHash(uint64(old), uint64(c.h.s.players), uint64(c.h.stateSize), uint64(c.h.inputSize), uint64(n.FrameRate), n.Game)
	require.NotEqual(t, c.h.Settings(), hash)
	hello := wire.Hello{Settings: hash, Nonce: 12, Protocol: old}.Append(nil)
	for k := range 10 {
		hello[1] = byte(k)
		require.NoError(t, ep.Send("host", hello))
		c.run(tick)
	}
	c.run(100 * time.Millisecond)
	buf := make([]byte, transport.MaxDatagram)
	k, _, err := ep.Receive(buf)
	require.NoError(t, err)
	w, _, err := wire.ParseWelcome(buf[:k])
	require.NoError(t, err)
	require.Equal(t, wire.WelcomeRefused, w.Kind)
	require.Equal(t, uint8(Protocol), w.Host.Protocol)
	_, _, err = ep.Receive(buf)
	require.Error(t, err, "one refusal")
	require.Equal(t, uint64(10), c.h.Stats().HellosRefused)
	require.Zero(t, c.h.Stats().Clients)
	se := &SettingsError{Client: hostSettingsOf(wire.AuthSettings{Protocol: old, Players: 2, StateSize: c.h.stateSize, InputSize: c.h.inputSize, FrameRate: n.FrameRate}),
		Host: hostSettingsOf(w.Host)}
	require.Contains(t, se.Error(), fmt.Sprintf("protocol %d (host %d)", old, Protocol))
}
