package authority

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/codec"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// drain reads and counts what an endpoint received.
func drain(ep *local.Endpoint) (n int, kinds map[codec.Type]int) {
	kinds = map[codec.Type]int{}
	buf := make([]byte, transport.MaxDatagram)
	for {
		k, _, err := ep.Receive(buf)
		if errors.Is(err, transport.ErrNoPacket) {
			return n, kinds
		}
		require.NoError(nil, err)
		n++
		typ, _, _, _ := codec.ParseHeader(buf[:k])
		kinds[typ]++
	}
}

// Hostile peers: random bytes, floods of Hello (wrong and right settings),
// of resume Hellos with forged tokens from many addresses, and a client
// that forges slots, claims absurd frames, acknowledges states never sent
// and floods Nacks. No panic; every reply bounded and counted; the honest
// clients' states stay the host's (checked on every one by the cluster).
func TestHostileClients(t *testing.T) {
	link := local.Link{Latency: 20 * time.Millisecond, Jitter: 3 * time.Millisecond, Loss: 0.01}
	net := session.NetConfig{DisconnectTimeout: 2 * time.Second, DisconnectNotify: 500 * time.Millisecond}
	c := newCluster(t, clusterOpts{seed: 51, players: 4, link: link, queue: 4096, host: HostConfig[uint16]{Net: net}})
	a := c.add("a", ClientConfig{}, mash(1, 3))
	b := c.add("b", ClientConfig{}, mash(2, 4))
	c.run(2 * time.Second)
	rng := rand.New(rand.NewPCG(1, 2))

	// Strangers: random bytes and Hellos with the wrong settings get nothing.
	evil, err := c.net.Endpoint("evil")
	require.NoError(t, err)
	for range 40 {
		for range 50 {
			junk := make([]byte, 1+rng.IntN(transport.MaxDatagram))
			for i := range junk {
				junk[i] = byte(rng.Uint32())
			}
			_ = evil.Send("host", junk)
			_ = evil.Send("host", codec.Hello{Settings: c.h.Settings() + 1, Nonce: rng.Uint64()}.Append(nil))
			_ = evil.Send("host", codec.Nack{Msg: rng.Uint32(), Missing: 1}.Append(nil))
		}
		c.run(tick)
	}
	got, _ := drain(evil)
	require.Zero(t, got, "a stranger's junk and wrong Hellos get no reply")
	hs := c.h.Stats()
	require.Greater(t, hs.UnknownPackets+hs.HellosRefused+hs.HellosDropped, uint64(4000))
	require.Greater(t, hs.UnknownPackets, uint64(1000))

	// Resume Hellos with forged tokens from 50 addresses: two records are
	// free, so two get RESUME_REJECT and an INITIAL_SYNC (copies bounded);
	// the rest nothing.
	var spoofs []*local.Endpoint
	for i := range 50 {
		ep, err := c.net.Endpoint("spoof" + strconv.Itoa(i))
		require.NoError(t, err)
		spoofs = append(spoofs, ep)
		var tok [codec.TokenLen]byte
		for k := range tok {
			tok[k] = byte(rng.Uint32())
		}
		for range 20 {
			_ = ep.Send("host", codec.Hello{Settings: c.h.Settings(), Nonce: rng.Uint64(), Resume: true, Token: tok}.Append(nil))
		}
	}
	c.run(time.Second)
	answered, welcomes := 0, 0
	for _, ep := range spoofs {
		_, kinds := drain(ep)
		if kinds[codec.TypeWelcome] > 0 {
			answered++
		}
		welcomes += kinds[codec.TypeWelcome]
	}
	require.Equal(t, 2, answered, "only free records answer")
	require.LessOrEqual(t, welcomes, 2*2*3, "a Reject and a Sync, three copies each, per answered address")

	// The spoofed records never played: freed once their connection is
	// gone (DisconnectTimeout), not held for the 20 s grace window.
	c.run(2500 * time.Millisecond)
	require.Equal(t, uint64(2), c.h.Stats().Expired)

	// A client that joins properly, then misbehaves.
	mal, err := c.net.Endpoint("mal")
	require.NoError(t, err)
	require.NoError(t, mal.Send("host", codec.Hello{Settings: c.h.Settings(), Nonce: 7}.Append(nil)))
	c.run(200 * time.Millisecond)
	_, kinds := drain(mal)
	welcomes = kinds[codec.TypeWelcome]
	require.NotZero(t, welcomes)
	var me ClientStats
	for _, s := range c.h.Clients(nil) {
		if s.Peer == "mal" {
			me = s
		}
	}
	require.Equal(t, transport.Peer("mal"), me.Peer)
	f := int32(c.h.Frame())
	attacks := [][]byte{
		codec.AuthInput{Ack: -1, Start: f, Frames: 1, Slots: 2, Size: 2, Inputs: []byte{1, 0, 1, 0}}.Append(nil), // another's slot too
		codec.AuthInput{Ack: -1, Start: 1 << 30, Frames: 1, Slots: 1, Size: 2, Inputs: []byte{1, 0}}.Append(nil), // absurd frame
		codec.AuthInput{Ack: f + 1000, Start: f, Frames: 1, Slots: 1, Size: 2, Inputs: []byte{1, 0}}.Append(nil), // ack of a state never sent
		codec.AuthInput{Ack: -1, Start: f, Frames: 1, Slots: 1, Size: 4, Inputs: []byte{1, 0, 0, 0}}.Append(nil), // another input size
	}
	sent := 0
	buf := make([]byte, transport.MaxDatagram)
	newest := uint32(0) // the newest state body mal saw: its Nacks aim there
	for range 100 {
		for {
			k, _, err := mal.Receive(buf)
			if err != nil {
				break
			}
			if fr, _, err := codec.ParseStateFragment(buf[:k]); err == nil {
				newest = max(newest, fr.Msg)
			}
		}
		for _, p := range attacks {
			_ = mal.Send("host", p)
			sent++
		}
		for range 40 {
			_ = mal.Send("host", codec.Hello{Settings: c.h.Settings(), Nonce: rng.Uint64()}.Append(nil))
			_ = mal.Send("host", codec.Nack{Msg: newest - uint32(rng.IntN(2)), Missing: ^uint64(0)}.Append(nil))
			sent += 2
		}
		c.run(tick)
	}
	replies, kinds := drain(mal)
	replies += int(me.StatesSent) // read in the loop: bounded by the next checks anyway
	_ = replies
	for _, s := range c.h.Clients(nil) {
		if s.Peer == "mal" {
			me = s
		}
	}
	t.Logf("mal sent %d, got %d replies %v; host view %+v", sent, replies, kinds, me)
	require.GreaterOrEqual(t, me.Link.Malformed, uint64(300))
	require.Greater(t, me.HellosIgnored, uint64(1000))
	require.NotZero(t, me.Flooded, "past MaxPacketsPerTick, not even read")
	require.LessOrEqual(t, welcomes+kinds[codec.TypeWelcome], 3, "one answer per connection (three copies), whatever the Hellos")
	// Each state the host sent mal is one fragment here; Nacks resend at
	// most three times each, whatever mal asks.
	require.LessOrEqual(t, me.FragmentsResent, 3*me.StatesSent)
	require.LessOrEqual(t, kinds[codec.TypeStateFragment], int(me.StatesSent+me.FragmentsResent))
	require.LessOrEqual(t, replies, int(me.StatesSent+me.FragmentsResent)+200, "states, repairs, and the link's own")

	// The honest clients never noticed.
	c.run(2 * time.Second)
	for _, nd := range []*node{a, b} {
		st := nd.c.Stats()
		require.True(t, st.Synchronized)
		require.Zero(t, st.Malformed)
	}
	require.Greater(t, c.checked, 1000)
}
