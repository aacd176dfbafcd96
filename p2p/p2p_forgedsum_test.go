package p2p

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/link"
	"github.com/rollnet/rollnet/internal/testkit"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// TestP2PForgedChecksumTail (issue 28 item 8) forges, at p0's transport
// and from p1's address (a spoofed source), copies of the real Input
// datagrams p1 sent, each with a checksum of a random value added: five
// bytes appended (what protocol 2 read as a checksum of a frame 40 past
// the packet's Ack), the flag set with a frame past the Ack, and the flag
// set with a frame past the Ack (on a copy, and as the next packet), and
// the flag set with a frame at or below the Ack on an older packet and on
// a copy of the newest one. For 1,200 frames over a lossy link, no node may report
// a desync, and the checksums keep being compared.
func TestP2PForgedChecksumTail(t *testing.T) {
	c, h := hostileCluster(t, 77)
	c.frames(120, 10*time.Second)
	p0 := c.nodes[0].p
	before, _ := p0.PeerStats("p1")
	rng := rand.New(rand.NewPCG(77, 8))
	in := make([]byte, wire.MaxFrames*2)
	stat := make([]wire.PeerStatus, wire.MaxPlayers)
	forge := func(real []byte) {
		m := wire.Input{Size: 2}
		if _, err := wire.ParseInput(real, &m, in, stat); err != nil || m.Frames == 0 {
			return // not an input
		}
		if m.HasChecksum {
			// The report it carries, with another value: a copy must not
			// overwrite the report it copies.
			m.Checksum ^= 1
			h.forge("p1", m.Append(nil))
		}
		// Five bytes appended: the checksum of a frame 40 past the Ack, on
		// the grid, as protocol 2 read them.
		f := (m.Ack + 40) / 10 * 10
		tail := binary.AppendVarint(nil, int64(f-m.Start))
		tail = binary.LittleEndian.AppendUint32(tail, rng.Uint32())
		h.forge("p1", append(append([]byte(nil), real...), tail...))
		// The flag set, a frame past the Ack.
		m.HasChecksum, m.CheckFrame, m.Checksum = true, f, rng.Uint32()
		h.forge("p1", m.Append(nil))
		// The same, as the next packet (a sequence number that makes it
		// the newest): the frame past the Ack must refuse it.
		next := m
		next.Seq++
		h.forge("p1", next.Append(nil))
		// The flag set, a frame the sender can have confirmed: from a
		// copy, never the newest packet.
		m.CheckFrame = max(m.Ack/10*10, 0)
		h.forge("p1", m.Append(nil))
	}
	seen := 0
	end := p0.Frame() + 1200
	c.until(60*time.Second, "1200 frames under forged checksums", func() bool {
		for ; seen < len(h.captured); seen++ {
			forge(h.captured[seen]) // a copy of the newest
			if seen > 3 {
				forge(h.captured[seen-3]) // and of an older one
			}
		}
		return p0.Frame() >= end && c.nodes[1].p.Frame() >= end
	})
	require.Greater(t, seen, 1000, "real inputs copied")
	for _, n := range c.nodes {
		_, desync := n.first(rollnet.EventDesyncDetected)
		require.False(t, desync, "%s: a forged checksum raised a desync", n.name)
	}
	after, _ := p0.PeerStats("p1")
	require.Greater(t, after.ChecksumsCompared-before.ChecksumsCompared, uint64(1200/10/2), "the honest reports kept being compared")
	require.Greater(t, after.Malformed-before.Malformed, uint64(1000), "the forgeries were counted")
}

// TestP2POldProtocolRefused: a peer of protocol 2 (checksums as leftover
// bytes), 3 (its raw rejoin secret in its Token and requests) or 4 (no
// delay block in its Input, which a match whose delay follows the network
// needs) or 5 (no desync repair: it would count a Repair malformed and
// never answer), a raw
// endpoint on the local network, is refused at the handshake with ReasonProtocol on our side, and our reply tells it our
// protocol, so that it fails clearly on its own.
func TestP2POldProtocolRefused(t *testing.T) {
	for _, old := range []uint16{2, 3, 4, 5} {
		t.Run(fmt.Sprint(old), func(t *testing.T) { oldProtocolRefused(t, old) })
	}
}

func oldProtocolRefused(t *testing.T, version uint16) {
	clock, nw := testkit.NewNet(t, local.Config{Seed: 5})
	ep, err := nw.Endpoint("p0")
	require.NoError(t, err)
	old, err := nw.Endpoint("p1")
	require.NoError(t, err)
	p, err := New[p2pWorld](Config[uint16]{Session: session.Config[uint16]{Players: 2, InputDelay: 2},
		Remote: []transport.Peer{"", "p1"}, Net: rollnet.NetConfig{Now: clock.Now}}, ep, simP2P)
	require.NoError(t, err)
	req := wire.SyncRequest{Seq: 1, Nonce: 99, Protocol: version, Settings: p.ep.Links()[0].Expect}
	require.NoError(t, old.Send("p0", req.Append(nil)))
	var se *rollnet.SyncError
	for range 100 {
		clock.Advance(time.Second / 60)
		_ = p.AddLocalInput(0, 0)
		if err = p.AdvanceFrame(); errors.As(err, &se) {
			break
		}
	}
	require.ErrorAs(t, err, &se, "refused at the handshake")
	require.Equal(t, link.ReasonProtocol, se.Reason)
	buf := make([]byte, transport.MaxDatagram)
	for {
		n, _, err := old.Receive(buf)
		require.NoError(t, err, "no SyncReply came back to the old peer")
		if wire.Type(buf[0]&0x0f) != wire.TypeSyncReply {
			continue
		}
		m, _, err := wire.ParseSyncReply(buf[:n])
		require.NoError(t, err)
		require.Equal(t, uint16(protocolVersion), m.Protocol, "the reply names our protocol")
		require.Equal(t, uint16(6), m.Protocol)
		return
	}
}
