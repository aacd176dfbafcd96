package entity

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// hostileWorld is a world of 1,024 entities all relevant to client 0,
// a quarter of them moving every tick, with a budget of 8,000 B/s.
func hostileWorld(t *testing.T) (*world, *Host, int) {
	w := newWorld(1024)
	w.radius = 1000
	w.viewers = [][2]int16{{0, 0}}
	h, err := NewHost(HostConfig{Capacity: 1024, Size: 4, Encode: w.encode, Interest: w.interest, BytesPerSecond: 8000})
	require.NoError(t, err)
	return w, h, h.AddClient()
}

// requireWithinBudget checks what the host sent the client in ticks.
func requireWithinBudget(t *testing.T, h *Host, id, ticks int) {
	t.Helper()
	s := h.Stats(id)
	sent := s.Bytes + overhead*s.Updates
	require.LessOrEqual(t, sent, uint64(8000*ticks/60+8000+1300), "sent %d B in %d ticks", sent, ticks)
	require.LessOrEqual(t, s.Tracked, 1024)
}

func TestHostileClientThatAcksNothingCostsItsBudget(t *testing.T) {
	w, h, id := hostileWorld(t)
	buf := make([]byte, 0, 1500)
	for tick := range 1200 {
		w.moveSome(tick, 4)
		h.Tick(w.slots)
		h.Append(buf[:0], id)
	}
	requireWithinBudget(t, h, id, 1200)
	require.Zero(t, h.Stats(id).Entities)
}

func TestHostileAcksAreCountedAndDropped(t *testing.T) {
	w, h, id := hostileWorld(t)
	c, err := NewClient(ClientConfig{Capacity: 1024, Size: 4})
	require.NoError(t, err)
	buf, abuf := make([]byte, 0, 1500), make([]byte, 0, 64)
	var old []byte
	for tick := range 600 {
		w.moveSome(tick, 4)
		h.Tick(w.slots)
		if b := h.Append(buf[:0], id); len(b) > 0 {
			require.NoError(t, c.Receive(b))
		}
		a := c.AppendAck(abuf[:0])
		if tick == 100 {
			old = append([]byte(nil), a...)
		}
		require.NoError(t, h.Receive(id, a))
		if tick > 100 {
			// Forged: an update never sent.
			require.NoError(t, h.Receive(id, ack{number: 1 << 30, seq: 1 << 30, bits: ^uint64(0)}.Append(nil)))
			// Replayed: an old ack, again.
			require.NoError(t, h.Receive(id, old))
			// Flooded: the same ack, many times.
			for range 10 {
				require.NoError(t, h.Receive(id, a))
			}
			// Malformed.
			require.ErrorIs(t, h.Receive(id, a[:len(a)-1]), ErrMalformed)
			require.ErrorIs(t, h.Receive(id, []byte{0xFF, 1, 2}), ErrMalformed)
		}
	}
	s := h.Stats(id)
	require.Equal(t, uint64(499), s.Forged)
	require.Equal(t, uint64(499+499*10), s.Replayed+s.Flooded)
	require.Equal(t, uint64(2*499), s.Malformed)
	require.LessOrEqual(t, s.Acks, uint64(600*maxAcksPerTick))
	require.Zero(t, s.Mismatches, "a hostile ack changed the host's view of the honest set")
	require.Equal(t, c.Stats().Entities, s.Entities)
	requireWithinBudget(t, h, id, 600)
}

func TestHostileFloodIsBoundedPerTick(t *testing.T) {
	w, h, id := hostileWorld(t)
	c, err := NewClient(ClientConfig{Capacity: 1024, Size: 4})
	require.NoError(t, err)
	buf := make([]byte, 0, 1500)
	for tick := range 100 {
		w.moveSome(tick, 4)
		h.Tick(w.slots)
		if b := h.Append(buf[:0], id); len(b) > 0 {
			require.NoError(t, c.Receive(b))
		}
		for range 100 { // each a later ack: none is a replay
			require.NoError(t, h.Receive(id, c.AppendAck(nil)))
		}
	}
	s := h.Stats(id)
	require.Equal(t, uint64(100*maxAcksPerTick), s.Acks)
	require.Equal(t, uint64(100*(100-maxAcksPerTick)), s.Flooded)
}

func TestMalformedUpdatesAreCountedAndDropped(t *testing.T) {
	c, err := NewClient(ClientConfig{Capacity: 16, Size: 3})
	require.NoError(t, err)
	b := sampleUpdate() // index 9999 is past a table of 16
	require.ErrorIs(t, c.Receive(b), ErrMalformed)
	require.ErrorIs(t, c.Receive(b[:5]), ErrMalformed)
	require.Equal(t, uint64(2), c.Stats().Malformed)
	require.Zero(t, c.Stats().Entities)
}

// A mirror that lost an entity by a bug of its own (no loss on the wire)
// is found by the digest and rebuilt; the three counters stay apart.
func TestDivergenceIsRepairedByRebuild(t *testing.T) {
	w := newWorld(256)
	p := newPair(t, w, 1, HostConfig{})
	p.buf = make([]byte, 0, 1500)
	w.viewers[0] = [2]int16{30, 10}
	for range 60 {
		p.tick()
	}
	c := p.clients[0]
	require.NotZero(t, c.Stats().Entities)
	for i, held := range c.present { // drop one entity behind the protocol's back
		if held {
			c.present[i] = false
			c.digest -= mix(Key{Index: uint32(i), Gen: c.gen[i]})
			c.count--
			break
		}
	}
	p.settle()
	p.requireAgree()
	cs, hs := c.Stats(), p.host.Stats(p.ids[0])
	require.Equal(t, uint64(1), hs.Mismatches)
	require.Equal(t, uint64(1), cs.Divergences)
	require.Equal(t, uint8(1), cs.Epoch)
	require.Zero(t, cs.Gaps)
	require.Zero(t, cs.Stale)
}

// A client that acknowledges every update the host sent, received or
// not, with a digest of nothing: each ack is a mismatch and a rebuild,
// and the host still sends no more than the budget.
func TestHostileClientThatAcksWhatItNeverReceived(t *testing.T) {
	w, h, id := hostileWorld(t)
	buf := make([]byte, 0, 1500)
	sent := uint32(0)
	for tick := range 1200 {
		w.moveSome(tick, 4)
		h.Tick(w.slots)
		if b := h.Append(buf[:0], id); len(b) > 0 {
			sent++
		}
		if sent > 0 {
			s := h.Stats(id)
			a := ack{epoch: s.Epoch, number: uint32(tick + 1), seq: h.clients[id].nextSeq - 1, bits: ^uint64(0), count: 7, digest: 42}
			require.NoError(t, h.Receive(id, a.Append(nil)))
		}
	}
	s := h.Stats(id)
	require.NotZero(t, s.Mismatches)
	requireWithinBudget(t, h, id, 1200)
}

func TestRemovedClientsNumberIsReused(t *testing.T) {
	w, h, id := hostileWorld(t)
	other := h.AddClient()
	h.Tick(w.slots)
	require.NotEmpty(t, h.Append(nil, id))
	h.RemoveClient(id)
	require.Empty(t, h.Append(nil, id), "a removed client is sent nothing")
	require.Equal(t, HostStats{}, h.Stats(id))
	require.NoError(t, h.Receive(id, []byte{1}), "a removed client's datagram is ignored")
	require.Equal(t, id, h.AddClient())
	require.Zero(t, h.Stats(id).Updates, "the number's new client starts afresh")
	require.NotEqual(t, id, other)
}
