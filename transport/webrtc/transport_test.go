package webrtc

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport"
)

// loopPair starts two loopback transports through a fresh hub: a joins
// first and offers to b. It waits until both see each other.
func loopPair(t testing.TB, cfg Config) (a, b *rtcTransport, h *hub) {
	t.Helper()
	cfg.LoopbackOnly = true
	h = newHub()
	a, err := newOn(cfg, h.join("a"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = a.Close() })
	b, err = newOn(cfg, h.join("b"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	_, err = a.WaitPeers(ctx, 1)
	require.NoError(t, err)
	_, err = b.WaitPeers(ctx, 1)
	require.NoError(t, err)
	return a, b, h
}

// waitBound bounds a test's wait for what a loopback connection does (a
// datagram, an event, a counter): within milliseconds idle, but under
// -race beside the other packages' tests on a loaded 2-core machine, by
// seconds. A wait past it fails saying what it waited for.
const waitBound = 20 * time.Second

// recv polls tr until a datagram arrives or the deadline passes.
func recv(t *testing.T, tr *rtcTransport, buf []byte) (int, transport.Peer) {
	t.Helper()
	deadline := time.Now().Add(waitBound)
	for time.Now().Before(deadline) {
		n, from, err := tr.Receive(buf)
		if err == nil {
			return n, from
		}
		require.ErrorIs(t, err, transport.ErrNoPacket)
		time.Sleep(100 * time.Microsecond)
	}
	t.Fatalf("no datagram within %v", waitBound)
	return 0, ""
}

func TestLoopbackRoundTrip(t *testing.T) {
	a, b, _ := loopPair(t, Config{})
	require.Equal(t, []transport.Peer{"b"}, a.Peers(nil))
	require.Equal(t, []transport.Peer{"a"}, b.Peers(nil))
	require.Equal(t, []transport.PeerEvent{{Kind: transport.PeerConnected, Peer: "b"}}, a.Events(nil))
	require.Equal(t, []transport.PeerEvent{{Kind: transport.PeerConnected, Peer: "a"}}, b.Events(nil))

	buf := make([]byte, transport.MaxDatagram)
	require.NoError(t, a.Send("b", []byte("ping")))
	n, from := recv(t, b, buf)
	require.Equal(t, "ping", string(buf[:n]))
	require.Equal(t, transport.Peer("a"), from)

	big := make([]byte, transport.MaxDatagram)
	for i := range big {
		big[i] = byte(i * 7)
	}
	require.NoError(t, b.Send("a", big))
	n, from = recv(t, a, buf)
	require.Equal(t, big, buf[:n])
	require.Equal(t, transport.Peer("b"), from)

	sa, sb := a.Stats(), b.Stats()
	require.Equal(t, uint64(1), sa.PacketsSent)
	require.Equal(t, uint64(4), sa.BytesSent)
	require.Equal(t, uint64(1), sa.PacketsReceived)
	require.Equal(t, uint64(transport.MaxDatagram), sa.BytesReceived)
	require.Equal(t, uint64(1), sb.PacketsReceived)
}

func TestSendAndReceiveErrors(t *testing.T) {
	a, b, _ := loopPair(t, Config{})
	buf := make([]byte, transport.MaxDatagram)

	_, _, err := a.Receive(buf)
	require.ErrorIs(t, err, transport.ErrNoPacket)
	require.ErrorIs(t, a.Send("b", make([]byte, transport.MaxDatagram+1)), transport.ErrTooLarge)
	require.ErrorIs(t, a.Send("nobody", []byte("x")), transport.ErrUnknownPeer)

	require.NoError(t, a.Send("b", []byte("12345")))
	_ = recvShort(t, b)

	require.NoError(t, a.Close())
	require.NoError(t, a.Close())
	require.ErrorIs(t, a.Send("b", []byte("x")), transport.ErrClosed)
	_, _, err = a.Receive(buf)
	require.ErrorIs(t, err, transport.ErrClosed)
	_, err = a.WaitPeers(context.Background(), 1)
	require.ErrorIs(t, err, transport.ErrClosed)
}

// recvShort waits for a datagram and receives it into a 2-byte buffer.
func recvShort(t *testing.T, tr *rtcTransport) error {
	t.Helper()
	deadline := time.Now().Add(waitBound)
	for time.Now().Before(deadline) {
		_, _, err := tr.Receive(make([]byte, 2))
		if !errors.Is(err, transport.ErrNoPacket) {
			require.ErrorIs(t, err, transport.ErrShortBuffer)
			require.Equal(t, uint64(1), tr.Stats().ReceivesShort)
			_, _, err = tr.Receive(make([]byte, transport.MaxDatagram))
			require.ErrorIs(t, err, transport.ErrNoPacket, "a short read drops the datagram")
			return nil
		}
		time.Sleep(100 * time.Microsecond)
	}
	t.Fatalf("no datagram within %v", waitBound)
	return nil
}

func TestRemoteCloseRemovesPeer(t *testing.T) {
	a, b, _ := loopPair(t, Config{})
	a.Events(nil)
	require.NoError(t, b.Close())

	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	ev := waitEvent(ctx, t, a, transport.PeerGone)
	require.Equal(t, transport.Peer("b"), ev.Peer)
	require.ErrorIs(t, ev.Err, transport.ErrPeerClosed)
	require.ErrorIs(t, a.Send("b", []byte("x")), transport.ErrPeerGone)
	require.Empty(t, a.Peers(nil))
}

// waitEvent waits for the next event of kind on tr.
func waitEvent(ctx context.Context, t *testing.T, tr *rtcTransport, kind transport.PeerEventKind) transport.PeerEvent {
	t.Helper()
	for {
		for _, e := range tr.Events(nil) {
			if e.Kind == kind {
				return e
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no %v event: %v", kind, ctx.Err())
		case <-time.After(time.Millisecond):
		}
	}
}

// TestSendBulk: a burst through SendBulk queues up to BulkThreshold
// (64 KiB), where Send drops above SendThreshold (256 B); it says which
// datagram it first dropped, and every one it took arrives. (Checked to
// fail: with SendBulk on SendThreshold, 1 was taken.)
func TestSendBulk(t *testing.T) {
	a, b, _ := loopPair(t, Config{})
	_, err := a.SendBulk("nobody", []byte{1})
	require.ErrorIs(t, err, transport.ErrUnknownPeer)
	msg := make([]byte, 1000)
	taken := 0
	for range 200 {
		ok, err := a.SendBulk("b", msg)
		require.NoError(t, err)
		if !ok {
			break
		}
		taken++
	}
	require.GreaterOrEqual(t, taken, defaultBulkThreshold/len(msg), "queued up to BulkThreshold")
	require.Less(t, taken, 200, "and no further")
	// Send, above SendThreshold, keeps the datagram in its own queue of
	// four, where the fifth of one kind supersedes the oldest.
	before := a.Stats()
	for range waitLen + 1 {
		require.NoError(t, a.Send("b", msg))
	}
	after := a.Stats()
	require.Equal(t, before.PacketsSent, after.PacketsSent, "Send waits above SendThreshold")
	require.Equal(t, before.SendsSuperseded+1, after.SendsSuperseded, "the newest datagram of a kind supersedes the oldest")
	require.Equal(t, before.SendsSkipped, after.SendsSkipped)
	buf := make([]byte, 2000)
	for i := range taken {
		n, from := recv(t, b, buf)
		require.Equal(t, len(msg), n, "datagram %d", i)
		require.EqualValues(t, "a", from)
	}
}
