package entity

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSpawnLowestFree: Spawn takes the lowest free slot, whatever order
// slots were freed in, and says false only when every slot is live; a key
// despawned stops naming anything.
func TestSpawnLowestFree(t *testing.T) {
	slots := make([]Slot, 10)
	for i := range 8 {
		k, ok := Spawn(slots)
		require.True(t, ok)
		require.Equal(t, Key{Index: uint32(i)}, k)
	}
	for _, i := range []uint32{5, 2, 7} {
		require.True(t, Despawn(slots, Key{Index: i}))
	}
	require.False(t, Live(slots, Key{Index: 2}))
	for _, want := range []Key{{2, 1}, {5, 1}, {7, 1}, {8, 0}, {9, 0}} {
		k, ok := Spawn(slots)
		require.True(t, ok)
		require.Equal(t, want, k)
	}
	_, ok := Spawn(slots)
	require.False(t, ok, "full")
	require.True(t, Despawn(slots, Key{Index: 0}))
	k, ok := Spawn(slots)
	require.True(t, ok)
	require.Equal(t, Key{Index: 0, Gen: 1}, k)
}

// TestSpawnTableWrittenByHand: a game that frees or fills slots by
// writing them (a table built at setup, a mirror) never gets a live slot
// from Spawn, and gets false only when every slot is live.
func TestSpawnTableWrittenByHand(t *testing.T) {
	slots := make([]Slot, 4)
	for range 4 {
		_, ok := Spawn(slots)
		require.True(t, ok)
	}
	slots[1] = Slot{Gen: 3} // freed by hand, below where Spawn looks first
	k, ok := Spawn(slots)
	require.True(t, ok)
	require.Equal(t, Key{Index: 1, Gen: 3}, k)
	slots = make([]Slot, 4)
	slots[0] = Slot{Live: true}
	slots[2] = Slot{Live: true}
	for _, want := range []uint32{1, 3} {
		k, ok := Spawn(slots)
		require.True(t, ok)
		require.Equal(t, want, k.Index)
	}
	_, ok = Spawn(slots)
	require.False(t, ok)
}

// TestSpawnCopiedTable: the table is the game's state, copied by value
// (a rollback, the host's copy): a copy spawns what the original does.
func TestSpawnCopiedTable(t *testing.T) {
	var a [16]Slot
	for range 10 {
		Spawn(a[:])
	}
	Despawn(a[:], Key{Index: 3})
	b := a
	for range 4 {
		ka, _ := Spawn(a[:])
		kb, _ := Spawn(b[:])
		require.Equal(t, ka, kb)
	}
	require.Equal(t, a, b)
}

// TestSpawnFillIsLinear: filling a table reads one slot a Spawn, not
// every live slot before the first free one: each Spawn starts where the
// last one stopped (the table's first slot keeps it).
func TestSpawnFillIsLinear(t *testing.T) {
	slots := make([]Slot, 2000)
	for i := range slots {
		require.Equal(t, uint32(i), slots[0].next, "Spawn %d starts looking at %d", i, slots[0].next)
		k, ok := Spawn(slots)
		require.True(t, ok)
		require.Equal(t, uint32(i), k.Index)
	}
}

// BenchmarkSpawnFill fills a 2,000-slot table, then empties it.
func BenchmarkSpawnFill(b *testing.B) {
	slots := make([]Slot, 2000)
	keys := make([]Key, 0, len(slots))
	b.ReportAllocs()
	for b.Loop() {
		keys = keys[:0]
		for range len(slots) {
			k, _ := Spawn(slots)
			keys = append(keys, k)
		}
		for _, k := range keys {
			Despawn(slots, k)
		}
	}
}
