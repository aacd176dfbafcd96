//go:build !js

package webrtc

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pion/datachannel"
	pion "github.com/pion/webrtc/v4"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport"
)

// BenchmarkRoundTrip times a 32-byte ping-pong on loopback: first over
// raw pion data channels (the physical baseline: detached, negotiated,
// unordered, MaxRetransmits 0, blocking reads), then over two Transports
// (non-blocking Receive polled every pollInterval by the echoing side and
// the pinging side). A poller must sleep, not spin: with every P busy
// (two spinners on two cores, even calling runtime.Gosched) the Go
// scheduler only polls the network from sysmon, every 10 ms; measured
// 145 ms p50 spinning, 7.5 ms with Gosched.
// ns/op is one round trip; p50 and p99 are reported as metrics.
func BenchmarkRoundTrip(b *testing.B) {
	b.Run("raw-pion", benchRawPion)
	b.Run("transport", benchTransport)
}

const pollInterval = 10 * time.Microsecond

func reportLatency(b *testing.B, rtts []time.Duration) {
	if len(rtts) == 0 {
		return
	}
	slices.Sort(rtts)
	b.ReportMetric(float64(rtts[len(rtts)/2].Microseconds()), "p50-us")
	b.ReportMetric(float64(rtts[len(rtts)*99/100].Microseconds()), "p99-us")
}

func benchTransport(b *testing.B) {
	a, c, _ := loopPair(b, Config{Tuning: Tuning{SendThreshold: 1 << 20}})
	stop := make(chan struct{})
	echoed := make(chan struct{})
	go func() { // c echoes everything back
		defer close(echoed)
		buf := make([]byte, transport.MaxDatagram)
		for {
			select {
			case <-stop:
				return
			default:
			}
			n, from, err := c.Receive(buf)
			if err == nil {
				_ = c.Send(from, buf[:n])
			} else {
				time.Sleep(pollInterval)
			}
		}
	}()
	defer func() { close(stop); <-echoed }()
	ping := make([]byte, 32)
	buf := make([]byte, transport.MaxDatagram)
	rtts := make([]time.Duration, 0, 1<<16)
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		require.NoError(b, a.Send(c.Local(), ping))
		for {
			if _, _, err := a.Receive(buf); err == nil {
				break
			}
			time.Sleep(pollInterval)
		}
		if len(rtts) < cap(rtts) {
			rtts = append(rtts, time.Since(t0))
		}
	}
	reportLatency(b, rtts)
}

// rawPair connects two pion PeerConnections directly (no trickle: each
// waits for its gathering to complete) and returns their detached channels.
func rawPair(b *testing.B) (x, y datachannel.ReadWriteCloser) {
	var se pion.SettingEngine
	se.DetachDataChannels()
	se.SetIncludeLoopbackCandidate(true)
	se.SetInterfaceFilter(func(name string) bool { return strings.HasPrefix(name, "lo") })
	se.SetNetworkTypes([]pion.NetworkType{pion.NetworkTypeUDP4})
	api := pion.NewAPI(pion.WithSettingEngine(se))
	var pcs [2]*pion.PeerConnection
	opened := make(chan datachannel.ReadWriteCloser, 2)
	for i := range pcs {
		pc, err := api.NewPeerConnection(pion.Configuration{})
		require.NoError(b, err)
		b.Cleanup(func() { _ = pc.GracefulClose() })
		ordered, zero, negotiated, id := false, uint16(0), true, uint16(0)
		dc, err := pc.CreateDataChannel("raw", &pion.DataChannelInit{
			Ordered: &ordered, MaxRetransmits: &zero, Negotiated: &negotiated, ID: &id,
		})
		require.NoError(b, err)
		dc.OnOpen(func() {
			rw, err := dc.Detach()
			if err != nil {
				panic(err)
			}
			opened <- rw
		})
		pcs[i] = pc
	}
	offer, err := pcs[0].CreateOffer(nil)
	require.NoError(b, err)
	gathered := pion.GatheringCompletePromise(pcs[0])
	require.NoError(b, pcs[0].SetLocalDescription(offer))
	<-gathered
	require.NoError(b, pcs[1].SetRemoteDescription(*pcs[0].LocalDescription()))
	answer, err := pcs[1].CreateAnswer(nil)
	require.NoError(b, err)
	gathered = pion.GatheringCompletePromise(pcs[1])
	require.NoError(b, pcs[1].SetLocalDescription(answer))
	<-gathered
	require.NoError(b, pcs[0].SetRemoteDescription(*pcs[1].LocalDescription()))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := range 2 {
		select {
		case rw := <-opened:
			if i == 0 {
				x = rw
			} else {
				y = rw
			}
		case <-ctx.Done():
			b.Fatal("raw pion channels did not open")
		}
	}
	return x, y
}

func benchRawPion(b *testing.B) {
	x, y := rawPair(b)
	echoed := make(chan struct{})
	go func() { // y echoes until its channel closes
		defer close(echoed)
		buf := make([]byte, transport.MaxDatagram)
		for {
			n, err := y.Read(buf)
			if err != nil {
				return
			}
			if _, err := y.Write(buf[:n]); err != nil {
				return
			}
		}
	}()
	defer func() { _ = y.Close(); _ = x.Close(); <-echoed }()
	ping := make([]byte, 32)
	buf := make([]byte, transport.MaxDatagram)
	rtts := make([]time.Duration, 0, 1<<16)
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		_, err := x.Write(ping)
		require.NoError(b, err)
		_, err = x.Read(buf)
		require.NoError(b, err)
		if len(rtts) < cap(rtts) {
			rtts = append(rtts, time.Since(t0))
		}
	}
	reportLatency(b, rtts)
}
