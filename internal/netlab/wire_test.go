//go:build linux

package netlab_test

import (
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/netlab"
)

// wireLine is the pong report's line on the wire, computed from its
// transport's datagram counts (transportfigures.Overhead).
var wireLine = regexp.MustCompile(`(?m)^  on the wire +out ([\d.]+) (kB/s|B/s) in (\d+) pkt/s, in ([\d.]+) (kB/s|B/s) in (\d+) pkt/s; ([\d.]+)x.*$`)

// quicListening is a dedicated host's log line with its address and
// certificate hash.
var quicListening = regexp.MustCompile(`msg="quic listening" addr=(\S+) id=\S+ sha256=([0-9a-f]{64})`)

// TestWireMatchesNftables: pong at 60 fps for 15 s, P2P over WebRTC (two
// players on the public segment), an authoritative client over WebRTC
// (the other player hosts) and over QUIC (a dedicated host); nftables in the namespace of the player
// whose report is read counts its UDP packets to and from the other end
// (IP length) over 8 s of the match, and the bytes and packets a second
// its report computes from the datagram counts (IP, UDP, DTLS and SCTP
// headers and SCTP's acknowledgements; QUIC's header, frames and tag)
// are within 15% of them, the packets within 25%: the computation counts
// a packet a datagram, and pion bundles the datagrams a peer sends at once
// into one (an authoritative host's state and its other messages of a
// tick), so it counts up to a fifth too many there.
func TestWireMatchesNftables(t *testing.T) {
	t.Run("webrtc-p2p", func(t *testing.T) {
		t.Parallel()
		l := lab(t)
		sig := startSignal(t, l)
		alice, bob := l.Public("alice"), l.Public("bob")
		count := alice.CountUDP(bob.Addr())
		args := []string{"-signal", sig.url, "-room", "wire", "-frames", "900", "-fps", "60", "-timeout", "30s"}
		ap := pong(t, alice, "alice", args...)
		ap.waitFor(t, regexp.MustCompile(`^pong: in room`), 20*time.Second)
		bp := pong(t, bob, "bob", args...)
		checkWire(t, count, ap, "alice")
		bout, bcode := bp.wait(t, 60*time.Second)
		played(t, "bob", bout, bcode)
	})
	t.Run("webrtc-authority", func(t *testing.T) {
		t.Parallel()
		l := lab(t)
		sig := startSignal(t, l)
		host, client := l.Public("host"), l.Public("client")
		count := client.CountUDP(host.Addr())
		args := []string{"-mode", "authority", "-signal", sig.url, "-room", "wire", "-frames", "900", "-fps", "60", "-timeout", "30s"}
		hp := pong(t, host, "host", args...)
		hp.waitFor(t, regexp.MustCompile(`^pong: in room`), 20*time.Second)
		cp := pong(t, client, "client", args...)
		checkWire(t, count, cp, "client")
		hout, hcode := hp.wait(t, 60*time.Second)
		played(t, "host", hout, hcode)
	})
	t.Run("quic-authority", func(t *testing.T) {
		t.Parallel()
		l := lab(t)
		host, client := l.Public("host"), l.Public("client")
		hp := start(t, host, "pong host", "pong", nil, "host", "-quic", host.Addr().String()+":4433", "-stats-every", "0")
		m, _ := hp.waitFor(t, quicListening, 20*time.Second)
		count := client.CountUDP(host.Addr())
		cp := pong(t, client, "client", "-mode", "authority", "-connect", "quic://"+m[1], "-pin", m[2],
			"-frames", "900", "-fps", "60", "-timeout", "30s")
		checkWire(t, count, cp, "client")
		hp.kill(t)
	})
}

// checkWire counts 8 s of p's match, from 3 s after its start, and
// compares the count with the wire line of p's report.
func checkWire(t *testing.T, count *netlab.Counter, p *proc, who string) {
	t.Helper()
	p.waitFor(t, regexp.MustCompile(`^pong: match started`), 30*time.Second)
	// The window of the count: past the handshakes, before the end.
	time.Sleep(3 * time.Second)
	out0, in0, err := count.Read()
	require.NoError(t, err)
	began := time.Now()
	time.Sleep(8 * time.Second)
	out1, in1, err := count.Read()
	require.NoError(t, err)
	d := time.Since(began).Seconds()
	report, code := p.wait(t, 60*time.Second)
	played(t, who, report, code)
	m := wireLine.FindStringSubmatch(report)
	require.NotNil(t, m, "%s's report has no line on the wire:\n%s", who, report)
	rate := func(v, unit string) float64 {
		f, err := strconv.ParseFloat(v, 64)
		require.NoError(t, err)
		if unit == "kB/s" {
			f *= 1000
		}
		return f
	}
	out, in := out1.Sub(out0), in1.Sub(in0)
	for _, c := range []struct {
		what               string
		computed, measured float64
		within             float64
	}{
		{"bytes/s out", rate(m[1], m[2]), float64(out.Bytes) / d, 0.15},
		{"packets/s out", rate(m[3], ""), float64(out.Packets) / d, 0.25},
		{"bytes/s in", rate(m[4], m[5]), float64(in.Bytes) / d, 0.15},
		{"packets/s in", rate(m[6], ""), float64(in.Packets) / d, 0.25},
	} {
		t.Logf("%-14s computed %8.0f, nftables %8.0f (%+.1f%%)", c.what, c.computed, c.measured, 100*(c.computed/c.measured-1))
		assert.InEpsilon(t, c.measured, c.computed, c.within, "%s: the report's computation against nftables", c.what)
	}
	t.Logf("%s's report: %s", who, m[0])
}
