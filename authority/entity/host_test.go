package entity

import (
	"fmt"
	"testing"

	"github.com/rollnet/rollnet"
	"github.com/stretchr/testify/require"
)

// moveAll moves a share of the entities one step.
func (w *world) moveSome(tick, every int) {
	for i := range w.slots {
		if (i+tick)%every == 0 {
			w.x[i] += int16(tick%3 - 1)
			w.y[i] += int16(tick%5 - 2)
		}
	}
}

func TestReplicationAgreesUnderLoss(t *testing.T) {
	for _, loss := range []int{0, 5, 25} {
		w := newWorld(512)
		p := newPair(t, w, 3, HostConfig{BytesPerSecond: 64000, Linger: 10})
		p.loss = loss
		p.buf = make([]byte, 0, 1500)
		for tick := range 600 {
			w.moveSome(tick, 7)
			for ci := range w.viewers { // viewers walk across the world
				w.viewers[ci] = [2]int16{int16((tick/4 + ci*40) % 128), int16(ci * 20)}
			}
			p.tick()
		}
		p.settle()
		p.requireAgree()
		for ci, c := range p.clients {
			hs, cs := p.host.Stats(p.ids[ci]), c.Stats()
			require.Zero(t, hs.Mismatches, "loss %d%%", loss)
			require.Zero(t, cs.Divergences)
			require.Zero(t, cs.Malformed)
			require.Equal(t, hs.Entities, cs.Entities)
			if loss > 0 {
				require.NotZero(t, cs.Gaps, "loss %d%%: the link lost nothing", loss)
			}
			t.Logf("loss %d%% client %d: %+v", loss, ci, cs)
		}
	}
}

func TestHysteresisKeepsAnEntityAtTheEdge(t *testing.T) {
	w := newWorld(64)
	p := newPair(t, w, 1, HostConfig{Linger: 20})
	p.buf = make([]byte, 0, 1500)
	w.viewers[0] = [2]int16{0, 0}
	for range 30 {
		p.tick()
	}
	_, ok := p.clients[0].Entity(5) // at (20, 0): on the edge
	require.True(t, ok)
	w.viewers[0] = [2]int16{-1, 0} // a step out of reach
	for range 15 {
		p.tick()
	}
	_, ok = p.clients[0].Entity(5)
	require.True(t, ok, "left before the linger ran out")
	for range 20 {
		p.tick()
	}
	_, ok = p.clients[0].Entity(5)
	require.False(t, ok, "still held after the linger")
}

func TestDespawnedEntityLeavesAndItsSlotReenters(t *testing.T) {
	w := newWorld(64)
	p := newPair(t, w, 1, HostConfig{})
	p.buf = make([]byte, 0, 1500)
	p.loss = 20
	for range 60 {
		p.tick()
	}
	old := Key{Index: 3, Gen: 0}
	require.True(t, Despawn(w.slots, old))
	require.False(t, Despawn(w.slots, old), "a stale key despawned again")
	require.False(t, Live(w.slots, old))
	p.tick()
	k, ok := Spawn(w.slots)
	require.True(t, ok)
	require.Equal(t, Key{Index: 3, Gen: 1}, k)
	w.x[3] = 1
	for range 60 {
		p.tick()
	}
	p.settle()
	s, ok := p.clients[0].Entity(3)
	require.True(t, ok)
	require.Equal(t, k, s.Key)
	p.requireAgree()
}

func TestPriorityChoosesWhatIsSentFirst(t *testing.T) {
	w := newWorld(256)
	w.radius = 1000
	hot := 200
	// A budget of about one record a tick: the raised entity goes first.
	cfg := HostConfig{BytesPerSecond: 60 * (overhead + updateHeaderMax + 8), Priority: func(_, i int) float32 {
		if i == hot {
			return 1000
		}
		return 0
	}}
	p := newPair(t, w, 1, cfg)
	p.buf = make([]byte, 0, 1500)
	for p.clients[0].Stats().Entities == 0 {
		p.tick()
	}
	_, ok := p.clients[0].Entity(hot)
	require.True(t, ok, "the raised entity was not among the first sent")
}

func TestBudgetBoundsBytes(t *testing.T) {
	w := newWorld(1024)
	w.radius = 1000
	const bps = 8000
	p := newPair(t, w, 1, HostConfig{BytesPerSecond: bps})
	p.buf = make([]byte, 0, 1500)
	const ticks = 600
	for tick := range ticks {
		w.moveSome(tick, 1)
		p.tick()
	}
	s := p.host.Stats(p.ids[0])
	sent := s.Bytes + overhead*s.Updates
	require.LessOrEqual(t, sent, uint64(bps*ticks/60+bps+1300))
	require.Greater(t, sent, uint64(bps*ticks/60*9/10), "the budget was not used")
}

// With InterestEvery 4 the host asks about each client every fourth
// tick; the sets still come to what interest names, under loss, and
// agree.
func TestInterestEveryAsksAboutEachClientInTurn(t *testing.T) {
	w := newWorld(512)
	p := newPair(t, w, 4, HostConfig{BytesPerSecond: 64000, Linger: 10, InterestEvery: 4})
	asked := make([]int, 4)
	p.host.cfg.Interest = func(c int, dst []int32) []int32 {
		asked[c]++
		return w.interest(c, dst)
	}
	p.loss = 5
	p.buf = make([]byte, 0, 1500)
	for tick := range 600 {
		w.moveSome(tick, 7)
		for ci := range w.viewers {
			w.viewers[ci] = [2]int16{int16((tick/4 + ci*40) % 128), int16(ci * 20)}
		}
		p.tick()
	}
	p.settle()
	p.requireAgree()
	for ci, n := range asked {
		require.InDelta(t, (600+120)/4, n, 1, "client %d asked about %d times in 720 ticks", ci, n)
		require.Zero(t, p.host.Stats(p.ids[ci]).Mismatches)
	}

	_, err := NewHost(HostConfig{Capacity: 8, Size: 4, Encode: w.encode, Interest: w.interest, Linger: 3, InterestEvery: 4})
	require.ErrorIs(t, err, rollnet.ErrConfig, "an entity named at every question would leave between them")
}

func TestRefreshCopiesAndSaysWhetherChanged(t *testing.T) {
	for size := 1; size <= 20; size++ {
		for at := range size {
			cur, next := make([]byte, size), make([]byte, size)
			for i := range next {
				cur[i], next[i] = byte(i), byte(i)
			}
			require.False(t, refresh(cur, next), "size %d", size)
			next[at]++
			require.True(t, refresh(cur, next), "size %d, byte %d", size, at)
			require.Equal(t, next, cur)
		}
	}
}

// With HostConfig.Changed the host encodes an entity again only when the
// game named it since its last encoding, or its slot has a new occupant
// (named or not); the mirrors still agree, under loss, when the host asks
// about interest every tick and when it asks every fourth (between, an
// entry found current is passed over unless Changed names its entity).
func TestChangedEncodesOnlyWhatTheGameNamed(t *testing.T) {
	for _, every := range []int{1, 4} {
		t.Run(fmt.Sprint("InterestEvery=", every), func(t *testing.T) { testChanged(t, every) })
	}
}

func testChanged(t *testing.T, every int) {
	w := newWorld(512)
	var moved []int32
	cfg := HostConfig{BytesPerSecond: 64000, Linger: 10, InterestEvery: every, Changed: func(dst []int32) []int32 { return append(dst, moved...) }}
	p := newPair(t, w, 3, cfg)
	named := make([]bool, len(w.slots)) // since its last encoding
	encGen := make([]int, len(w.slots)) // the generation last encoded, +1
	encodes, all := 0, 0
	p.host.cfg.Encode = func(dst []byte, i int) {
		gen := int(w.slots[i].Gen) + 1
		require.True(t, named[i] || encGen[i] != gen, "entity %d encoded again, unnamed", i)
		named[i], encGen[i] = false, gen
		encodes++
		w.encode(dst, i)
	}
	p.loss = 5
	p.buf = make([]byte, 0, 1500)
	for tick := range 600 {
		moved = moved[:0]
		for i := range w.slots {
			if (i+tick)%7 == 0 {
				w.x[i] += int16(tick%3 - 1)
				w.y[i] += int16(tick%5 - 2)
				moved = append(moved, int32(i), -1, int32(len(w.slots))) // out of range: ignored
				named[i] = true
			}
		}
		for ci := range w.viewers { // viewers walk across the world
			w.viewers[ci] = [2]int16{int16((tick/4 + ci*40) % 128), int16(ci * 20)}
			all += len(w.interest(ci, nil))
		}
		if tick%50 == 25 { // one that client 1 holds despawns, named
			idx := w.viewers[1][0]/4 + 32*5
			if w.slots[idx].Live {
				require.True(t, Despawn(w.slots, Key{Index: uint32(idx), Gen: w.slots[idx].Gen}))
				moved = append(moved, int32(idx))
			}
		}
		p.tick()
	}
	moved = moved[:0]
	for range 60 { // quiet: the entries become current
		p.tick()
	}
	// A new occupant the game does not name, that client 0 holds (seen
	// when the host next asks about client 0).
	idx := w.viewers[0][0]/4 + 1
	require.True(t, Despawn(w.slots, Key{Index: uint32(idx), Gen: w.slots[idx].Gen}))
	_, ok := Spawn(w.slots)
	require.True(t, ok)
	w.y[idx] += 2
	p.settle()
	p.requireAgree()
	for ci := range p.clients {
		require.Zero(t, p.host.Stats(p.ids[ci]).Mismatches)
	}
	require.Less(t, encodes*3, all, "the host encoded %d times for %d held entities", encodes, all)
}

// A host told what changed (HostConfig.Changed, which names every move,
// despawn and spawn) does what a host that encodes every held entity
// each tick does: the same counters for every client after every tick
// (so the same updates, acks and sets), under loss, with interest asked
// every fourth tick, entities despawning and spawning, a client whose
// Append is skipped on some ticks, one that sways (so entities leave and
// come back before the leave is acknowledged) and one whose set is
// rebuilt.
func TestChangedActsAsEncodingEverything(t *testing.T) {
	w := newWorld(512)
	var moved []int32
	base := HostConfig{BytesPerSecond: 16000, Linger: 10, InterestEvery: 4}
	fed := base
	fed.Changed = func(dst []int32) []int32 { return append(dst, moved...) }
	pa, pb := newPair(t, w, 3, base), newPair(t, w, 3, fed)
	for _, p := range []*pair{pa, pb} {
		p.loss = 10
		p.buf = make([]byte, 0, 1500)
		p.skip = func(client int) bool { return client == 2 && p.now%13 < 2 }
	}
	var gone []int32
	for tick := range 900 {
		moved = moved[:0]
		for i := range w.slots {
			if i%3 == 0 && (i+tick)%7 == 0 { // a third move; the rest stay, so their entries stay current
				w.x[i] += int16(tick%3 - 1)
				w.y[i] += int16(tick%5 - 2)
				moved = append(moved, int32(i))
			}
		}
		for ci := range 3 {
			w.viewers[ci] = [2]int16{int16((tick/4 + ci*40) % 128), int16(ci * 20)}
		}
		if sway := tick % 24; sway < 12 { // client 0 sways 6 units
			w.viewers[0][0] += int16(min(sway, 6))
		} else {
			w.viewers[0][0] += int16(max(18-sway, 0))
		}
		if tick%100 == 50 && tick > 400 { // client 0's digest goes wrong behind the protocol's back, on both
			pa.clients[0].digest++
			pb.clients[0].digest++
		}
		switch tick % 50 {
		case 25: // one that client 1 holds despawns
			idx := int32(w.viewers[1][0]/4 + 32*5)
			if w.slots[idx].Live {
				require.True(t, Despawn(w.slots, Key{Index: uint32(idx), Gen: w.slots[idx].Gen}))
				moved, gone = append(moved, idx), append(gone, idx)
			}
		case 40: // and a slot is taken again, elsewhere
			if len(gone) > 0 {
				k, ok := Spawn(w.slots)
				require.True(t, ok)
				w.x[k.Index] += 3
				moved = append(moved, int32(k.Index))
			}
		}
		pa.tick()
		pb.tick()
		for ci := range 3 {
			require.Equal(t, pa.host.Stats(pa.ids[ci]), pb.host.Stats(pb.ids[ci]), "tick %d, client %d", tick, ci)
		}
	}
	moved = moved[:0]
	pb.settle()
	pb.requireAgree()
	require.NotZero(t, pb.host.Stats(pb.ids[1]).Records)
	require.Equal(t, uint64(5), pb.host.Stats(pb.ids[0]).Mismatches)
}
