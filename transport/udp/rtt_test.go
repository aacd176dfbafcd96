//go:build !js

package udp

import (
	"context"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A client's round trip over a relay that holds each pong for d on the
// client's injected clock: Path reports d, less the (real, short) waits
// of the ping and the pong before each end read them. The host measures
// its own, on its own clock.
func TestRoundTrip(t *testing.T) {
	h := listen(t, Config{})
	relay, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	require.NoError(t, err)
	clock := newFakeClock()
	const d = 2 * time.Second
	hostAddr := h.LocalAddr().(*net.UDPAddr).AddrPort()
	done := make(chan struct{})
	pongs := make(chan struct{}, 100)
	go func() {
		defer close(done)
		buf := make([]byte, 2048)
		var client netip.AddrPort
		for {
			n, from, err := relay.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			to := hostAddr
			if from == hostAddr {
				to = client
				if n > 0 && buf[0] == kindPong {
					clock.Add(d)
					select {
					case pongs <- struct{}{}:
					default:
					}
				}
			} else {
				client = from
			}
			_, _ = relay.WriteToUDPAddrPort(buf[:n], to)
		}
	}()
	t.Cleanup(func() { _ = relay.Close(); <-done })

	g := grant(t, h)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := dialUDP(ctx, relay.LocalAddr().String(), Config{Grant: &g, Now: clock.Now})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })

	// Three pongs: the client pings again once its clock passed a second.
	for range 3 {
		select {
		case <-pongs:
		case <-ctx.Done():
			t.Fatal("fewer than three pongs came")
		}
	}
	eventually(t, func() bool {
		info, err := c.Path(c.Host())
		require.NoError(t, err)
		return info.RTT != 0
	}, "the client measured no round trip")
	info, err := c.Path(c.Host())
	require.NoError(t, err)
	t.Logf("client: %v over a relay holding pongs %v", info.RTT, d)
	require.LessOrEqual(t, info.RTT, d, "the waits at each end are taken out, not added")
	require.Greater(t, info.RTT, d-d/4, "near the relay's hold")

	eventually(t, func() bool {
		info, err := h.Path(c.Local())
		require.NoError(t, err)
		return info.RTT != 0
	}, "the host measured no round trip")
	info, err = h.Path(c.Local())
	require.NoError(t, err)
	require.Less(t, info.RTT, d, "the host's clock does not see the relay's hold")
}

// A pong says how long its ping waited at the answering end before it
// was read (the kernel's receive time): here, a host whose socket nobody
// reads for a while (its read lock held) answers a ping that waited at
// least that long, and at most the whole round trip.
func TestPongSaysHowLongThePingWaited(t *testing.T) {
	if !pollable {
		t.Skip("the kernel's receive times are read on Linux")
	}
	h := listen(t, Config{})
	r := newRaw(t, "127.0.0.2:0", h.LocalAddr())
	ks, ok := r.handshake(grant(t, h))
	require.True(t, ok)
	var n [12]byte
	r.send(sealPacket(nil, ks.c2s, &n, kindKeepAlive, 1, nil)) // connected
	eventually(t, func() bool { return len(h.Peers(nil)) == 1 }, "the host never had the client")

	const hold = 50 * time.Millisecond
	h.rmu.Lock() // neither the read loop nor Receive reads now
	start := time.Now()
	r.send(sealPacket(nil, ks.c2s, &n, kindPing, 2, appendPing(nil, 12345)))
	time.Sleep(hold) // the wait the pong must report, not a synchronisation
	h.rmu.Unlock()
	for {
		b := r.read(5 * time.Second)
		require.NotNil(t, b, "no pong")
		if b[0] != kindPong {
			continue // a keep-alive, or the host's own ping
		}
		elapsed := time.Since(start)
		_, seq, err := parseSealed(b)
		require.NoError(t, err)
		p, err := openPacket(b, ks.s2c, &n, seq)
		require.NoError(t, err)
		stamp, held, err := parsePong(p)
		require.NoError(t, err)
		require.Equal(t, uint64(12345), stamp)
		t.Logf("held %v of %v", held, elapsed)
		require.GreaterOrEqual(t, held, hold-time.Millisecond, "the ping waited at least the hold (µs precision)")
		require.LessOrEqual(t, held, elapsed)
		return
	}
}

// The kernel's receive time of a datagram precedes its read.
func TestReceiveTimes(t *testing.T) {
	if !pollable {
		t.Skip("the kernel's receive times are read on Linux")
	}
	u, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	require.NoError(t, err)
	addr := u.LocalAddr().(*net.UDPAddr).AddrPort()
	bc, err := newBatchConn(u, 4)
	require.NoError(t, err)
	defer bc.close()
	before := time.Now().UnixNano()
	require.NoError(t, bc.writeTo([]byte("hi"), addr))
	require.NoError(t, bc.wait(false)) // readable: it arrived
	arrived := time.Now().UnixNano()
	b := newBatch(4, readBufSize)
	require.NoError(t, bc.poll(b))
	require.Equal(t, 1, b.n)
	require.GreaterOrEqual(t, b.stamps[0], before)
	require.LessOrEqual(t, b.stamps[0], arrived, "the kernel's time, not the read's")
}

// A client of version 1 (before ping and pong) is refused with the
// host's version, which its Dial reports as ErrVersion.
func TestVersion1Refused(t *testing.T) {
	h := listen(t, Config{})
	r := newRaw(t, "127.0.0.2:0", h.LocalAddr())
	old := request{token: grant(t, h).Token}.Append(nil)
	old[1] = 1
	r.send(old)
	require.Equal(t, []byte{kindVersion, wireVersion}, r.read(5*time.Second))
	require.Equal(t, uint64(1), h.Stats().VersionRefused)
	require.Len(t, h.Peers(nil), 0)
}

func TestPingPongWire(t *testing.T) {
	s, err := parsePing(appendPing(nil, 1<<60))
	require.NoError(t, err)
	require.Equal(t, uint64(1<<60), s)
	s, held, err := parsePong(appendPong(nil, 7, 1500*time.Microsecond))
	require.NoError(t, err)
	require.Equal(t, uint64(7), s)
	require.Equal(t, 1500*time.Microsecond, held)
	_, held, err = parsePong(appendPong(nil, 7, 3*time.Hour))
	require.NoError(t, err)
	require.Equal(t, time.Duration(1<<32-1)*time.Microsecond, held, "capped, not wrapped")
	_, _, err = parsePong(appendPong(nil, 7, 0)[:pongSize-1])
	require.Error(t, err)
	_, err = parsePing(nil)
	require.Error(t, err)
	padded := appendPing(nil, 7)
	padded[pingSize-1] = 1
	_, err = parsePing(padded)
	require.Error(t, err, "a ping's padding is zeros")
	require.Equal(t, len(appendPing(nil, 7)), len(appendPong(nil, 7, time.Second)), "no answer larger than its ping")
}

func FuzzParsePong(f *testing.F) {
	f.Add(appendPong(nil, 99, time.Millisecond))
	f.Add(appendPing(nil, 99))
	f.Fuzz(func(t *testing.T, b []byte) {
		if s, err := parsePing(b); err == nil {
			require.Equal(t, b, appendPing(nil, s))
		}
		if s, held, err := parsePong(b); err == nil {
			require.Equal(t, b, appendPong(nil, s, held))
		}
	})
}
