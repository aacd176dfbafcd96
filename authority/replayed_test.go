package authority

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// replayer is an on-path attacker in front of the host: it keeps a copy of
// every packet the victim sends, and delivers the copies it is told to
// after the real packets, as if from the victim. It counts what it
// injects and what the host sends the victim.
type replayer struct {
	transport.Transport
	victim   transport.Peer
	log      [][]byte // every packet from the victim, in order
	queue    [][]byte // copies to deliver
	injected int      // bytes delivered from queue
	sent     int      // bytes the host sent the victim
}

func (r *replayer) Receive(buf []byte) (int, transport.Peer, error) {
	n, from, err := r.Transport.Receive(buf)
	switch {
	case err == nil:
		if from == r.victim {
			r.log = append(r.log, bytes.Clone(buf[:n]))
		}
	case errors.Is(err, transport.ErrNoPacket) && len(r.queue) > 0:
		b := r.queue[0]
		r.queue = r.queue[1:]
		r.injected += len(b)
		return copy(buf, b), r.victim, nil
	}
	return n, from, err
}

func (r *replayer) Send(to transport.Peer, b []byte) error {
	if to == r.victim {
		r.sent += len(b)
	}
	return r.Transport.Send(to, b)
}

// replayedRun is one match of a host of entityWorld (16 KiB) and client a
// over a 20 ms link for 12 s; from the second second on, when attack is
// set, the replayer in front of the host delivers each tick two copies of
// a's old packets, after the real ones: one of 2 packets before (an
// acknowledgement at or after the newest full state, which reset the full
// states' pacing) and one of 45 packets before (an acknowledgement older
// than any baseline the host keeps, the last the host reads before it
// sends). It returns the
// host states a compared with the host's, the full states the host sent
// a, and the replayer.
func replayedRun(t *testing.T, attack bool) (compared int, full uint64, r *replayer) {
	clock := local.NewClock(epoch)
	n, err := local.NewNetwork(local.Config{Seed: 5, Now: clock.Now, Link: local.Link{Latency: 20 * time.Millisecond}, QueueLen: 4096})
	require.NoError(t, err)
	hep, err := n.Endpoint("host")
	require.NoError(t, err)
	r = &replayer{Transport: hep, victim: "a"}
	seed := uint64(1)
	h, err := NewHost(HostConfig[uint16]{Players: 1, Net: rollnet.NetConfig{Now: clock.Now,
		Tuning: rollnet.NetTuning{Rand: func() uint64 { seed = seed*6364136223846793005 + 1442695040888963407; return seed }}}}, transport.Transport(r), simEntities)
	require.NoError(t, err)
	for i := range h.State().E {
		h.State().E[i].X, h.State().E[i].Y = int32(i*100), int32(i*7)
	}
	m := &entityMatch{clock: clock, net: n, h: h}
	a := m.client(t, "a")
	seen := rollnet.NoFrame
	for k := range 12 * 60 {
		if attack && k >= 60 && len(r.log) > 45 {
			r.queue = append(r.queue, r.log[len(r.log)-2], r.log[len(r.log)-45])
		}
		clock.Advance(tick)
		require.NoError(t, h.AdvanceFrame())
		_ = a.AddLocalInput(0, uint16(k/5))
		require.NoError(t, a.AdvanceFrame())
		if s, f := a.HostState(); s != nil && f > seen {
			seen = f
			sum, err := h.ChecksumAt(f)
			require.NoError(t, err)
			require.Equal(t, sum, rollback.Checksum(rollback.BytesOf(s)))
			compared++
		}
	}
	require.True(t, a.Synchronized())
	hs := h.Clients(nil)[0]
	st := a.Stats()
	t.Logf("attack=%v: a compared %d host states (applied %d, dropped %d); host sent a %d states, %d full, %d deferred, %d B; %d B injected, %d copies dropped",
		attack, compared, st.StatesApplied, st.StatesDropped, hs.StatesSent, hs.FullStates, hs.StatesDeferred, r.sent, r.injected, hs.Replayed)
	return compared, hs.FullStates, r
}

// Issue 40 items 4 and 8: an on-path replayer of a client's packets. The
// host took the acknowledgement of the newest packet that passed Accept,
// copies included: an old copy's forced a full state, a recent copy's
// reset the full states' pacing, and the client dropped the full states
// it gave no cause for. Before: 98 full states against 3, 843 KB sent
// the victim against 171 KB at peace for 37 KB injected, 86 states
// compared against 712. Now a copy is dropped unread (seen): the client compares
// at least 90% of what it compares at peace, the host sends it at most
// two full states more than at peace, and the extra bytes it sends the
// victim are at most the bytes injected.
func TestReplayedAcknowledgements(t *testing.T) {
	peace, peaceFull, pr := replayedRun(t, false)
	attacked, attackFull, ar := replayedRun(t, true)
	require.NotZero(t, ar.injected)
	require.GreaterOrEqual(t, attacked*10, peace*9, "states compared under the replayer, against peace")
	require.LessOrEqual(t, attackFull, peaceFull+2, "full states sent the victim")
	require.LessOrEqual(t, ar.sent-pr.sent, ar.injected, "extra bytes sent the victim, against the bytes injected")
}
