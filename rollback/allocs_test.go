package rollback

import (
	"testing"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/stretchr/testify/require"
)

// TestAllocsRing covers small (inlined copies), large (memmove) and very
// large states: a T beyond the stack's size limit once made Commit
// allocate a whole T per call.
func TestAllocsRing(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	t.Run("192B", allocsRing[state192B])
	t.Run("36000B", allocsRing[[36000]byte])
	t.Run("1MiB", allocsRing[state1MiB])
}

func allocsRing[T any](t *testing.T) {
	r, err := New[T](16)
	require.NoError(t, err)
	r.Commit()
	r.Commit()
	var sink uint32
	for name, f := range map[string]func(){
		"Commit":     func() { r.Commit() },
		"Rollback":   func() { r.Commit(); _ = r.Rollback(1) },
		"Rollback0":  func() { _ = r.Rollback(0) },
		"Peek":       func() { p, _ := r.Peek(1); sink += uint32(BytesOf(p)[0]) },
		"Checksum":   func() { sink += r.Checksum() },
		"ChecksumAt": func() { c, _ := r.ChecksumAt(1); sink += c },
		"Live":       func() { BytesOf(r.Live())[0]++ },
		"Depth":      func() { sink += uint32(r.Depth() + r.Capacity()) },
		"Errors": func() {
			_, _ = r.Peek(-1)
			_ = r.Rollback(99)
			_, _ = r.ChecksumAt(99)
		},
		"Reset": func() { r.Reset(); r.Commit(); r.Commit() },
	} {
		allocs.RequireZero(t, 20, f, name)
	}
	_ = sink
}

func TestAllocsBytes(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	r, err := NewBytes(16, 36000)
	require.NoError(t, err)
	r.Commit()
	r.Commit()
	var sink uint32
	for name, f := range map[string]func(){
		"Commit":     func() { r.Commit() },
		"Rollback":   func() { r.Commit(); _ = r.Rollback(1) },
		"Rollback0":  func() { _ = r.Rollback(0) },
		"Peek":       func() { p, _ := r.Peek(1); sink += uint32(p[0]) },
		"Checksum":   func() { sink += r.Checksum() },
		"ChecksumAt": func() { c, _ := r.ChecksumAt(1); sink += c },
		"Live":       func() { r.Live()[0]++ },
		"Errors": func() {
			_, _ = r.Peek(-1)
			_ = r.Rollback(99)
			_, _ = r.ChecksumAt(99)
		},
		"Reset": func() { r.Reset(); r.Commit(); r.Commit() },
	} {
		allocs.RequireZero(t, 100, f, name)
	}
	_ = sink
}

func TestAllocsBytesOf(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	var s modelState
	allocs.RequireZero(t, 100, func() { BytesOf(&s)[0]++ })
	require.Len(t, BytesOf(&s), 32)
}
