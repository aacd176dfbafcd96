package p2p

import (
	"testing"
	"time"

	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// resetTransport is a spectator's transport that, once its spectator is
// nearly live, sends every tenth acknowledgement as frame 1 (issue 28
// item 2), and counts the bytes it sends and receives.
type resetTransport struct {
	transport.Transport
	s       *Spectator[p2pWorld, uint16]
	honest  bool
	in, out int
	reset   bool  // acknowledging the host's feed from frame 1
	got     int32 // the newest frame of that feed held contiguously
}

func (h *resetTransport) Send(to transport.Peer, b []byte) error {
	if len(b) > 0 && wire.Type(b[0]&0x0f) == wire.TypeInputAck && h.s != nil && !h.honest && h.s.Behind() <= feedLive+8 {
		if m, _, err := wire.ParseInputAck(b); err == nil {
			if !h.reset || h.got >= int32(h.s.Frame())-feedLive {
				h.reset, h.got = true, 1 // nearly live: back to frame 1
			}
			m.Ack = h.got
			b = m.Append(nil)
		}
	}
	h.out += len(b)
	return h.Transport.Send(to, b)
}

func (h *resetTransport) Receive(buf []byte) (int, transport.Peer, error) {
	n, from, err := h.Transport.Receive(buf)
	if err == nil {
		h.in += n
		m := wire.Input{Size: 2}
		if h.reset && wire.Type(buf[0]&0x0f) == wire.TypeInput {
			if _, perr := wire.ParseInput(buf[:n], &m, make([]byte, wire.MaxFrames*4), make([]wire.PeerStatus, 2)); perr == nil &&
				m.Start <= h.got+1 && m.Start+int32(m.Frames)-1 > h.got {
				h.got = m.Start + int32(m.Frames) - 1
			}
		}
	}
	return n, from, err
}

// TestSpectatorAckReset: a spectator that acknowledges as frames arrive
// and resets its ack to frame 1 each time it is nearly live made its host
// restart the bulk feed with a full burst every time (576 KB/s from the
// player for 383 B/s in). Its host may now send it at most the budget of
// doc.go: over 20 s of a 36,000-frame match, at most 3 restarts a minute
// and the live stream.
func TestSpectatorAckReset(t *testing.T) {
	honest, _ := ackResetRate(t, true)
	rate, in := ackResetRate(t, false)
	t.Logf("the host sent the resetting spectator %.0f B/s for %.0f B/s in (%.0fx); an honest one %.0f B/s", rate, in, rate/in, honest)
	require.Less(t, rate, 16_000.0, "the bytes a spectator may cost (doc.go: the live stream and 3 restarts a minute)")
}

// ackResetRate returns the bytes a second the host sends a spectator
// (honest, or resetting its ack) over 20 s, once live, of a 36,000-frame
// match, and those it receives.
func ackResetRate(t *testing.T, honest bool) (out, in float64) {
	c := feedCluster(t, 85, local.Link{Latency: 20 * time.Millisecond}, 40000, nil)
	c.frames(36000, time.Hour)
	var h *resetTransport
	spec := c.joinLate("late", func(tr transport.Transport) transport.Transport {
		h = &resetTransport{Transport: tr, honest: honest}
		return h
	})
	h.s = spec.s
	c.live(spec, 30*time.Second)
	in0, out0 := h.in, h.out
	c.run(20 * time.Second)
	return float64(h.in-in0) / 20, float64(h.out-out0) / 20
}
