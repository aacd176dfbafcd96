package replay

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/rollback"
	"github.com/stretchr/testify/require"
)

// recordMatch records frames of the test world with inputs that change
// now and then (as a player's do) and returns the file.
func recordMatch(t testing.TB, cfg RecorderConfig, frames int) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w world
	w.R = rollnet.NewRand(7)
	r, err := NewRecorder[world, uint16](cfg, &buf, &w)
	require.NoError(t, err)
	in := make([]uint16, cfg.Players)
	for f := range frames {
		for p := range in {
			in[p] = uint16((f/(5+p) + p) % 4)
		}
		simWorld(&w, in, rollnet.Frame(f))
		require.NoError(t, r.Record(in, &w))
	}
	require.NoError(t, r.Close())
	return buf.Bytes()
}

func replayAll(file []byte, cfg ReplayerConfig, sim func(*world, []uint16, rollnet.Frame)) (*Replayer[world, uint16], error) {
	p, err := NewReplayer[world, uint16](cfg, bytes.NewReader(file), sim)
	if err != nil {
		return nil, err
	}
	return p, p.Run()
}

func TestRecordReplay(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cfg     RecorderConfig
		frames  int
		checked int
	}{
		{"every frame", RecorderConfig{Players: 2}, 1000, 1000},
		{"every 7, states", RecorderConfig{Players: 3, ChecksumEvery: 7, States: true, Settings: 42}, 1000, 142},
		{"one frame", RecorderConfig{Players: 1}, 1, 1},
		{"no frames", RecorderConfig{Players: 2}, 0, 0},
		{"a block exactly", RecorderConfig{Players: 2, ChecksumEvery: 64}, 128, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := recordMatch(t, tc.cfg, tc.frames)
			p, err := replayAll(file, ReplayerConfig{Settings: tc.cfg.Settings}, simWorld)
			require.NoError(t, err)
			require.Equal(t, rollnet.Frame(tc.frames), p.Frame())
			require.Equal(t, tc.checked, p.Checked())
			require.Equal(t, tc.cfg.Players, p.Players())
			require.ErrorIs(t, p.AdvanceFrame(), io.EOF, "the end stays the end")
		})
	}
}

// A simulation that changes at frame 500 is caught at frame 500, and with
// states recorded the error names the field.
func TestReplayMismatch(t *testing.T) {
	drift := func(w *world, in []uint16, f rollnet.Frame) {
		simWorld(w, in, f)
		if f == 500 {
			w.Acc[3]++
		}
	}
	file := recordMatch(t, RecorderConfig{Players: 2}, 1000)
	_, err := replayAll(file, ReplayerConfig{}, drift)
	var me *MismatchError
	require.ErrorAs(t, err, &me)
	require.ErrorIs(t, err, ErrMismatch)
	require.Equal(t, rollnet.Frame(500), me.Frame)
	require.Equal(t, rollnet.Frame(499), me.LastAgreed)
	require.Empty(t, me.Fields)

	file = recordMatch(t, RecorderConfig{Players: 2, ChecksumEvery: 10, States: true}, 1000)
	p, err := replayAll(file, ReplayerConfig{}, drift)
	require.ErrorAs(t, err, &me)
	require.Equal(t, rollnet.Frame(509), me.Frame)
	require.Equal(t, rollnet.Frame(499), me.LastAgreed)
	require.Equal(t, 50, p.Checked())
	require.NotEmpty(t, me.Fields)
	require.Equal(t, len(me.Fields), min(me.Differ, 8))
	require.Contains(t, err.Error(), "Mixer.Acc[")
	require.ErrorIs(t, p.AdvanceFrame(), ErrMismatch, "sticky")
}

// Every byte of a recording matters: flipping any one is an error, never
// a panic, and never a replay that claims success.
func TestReplayCorruptEveryByte(t *testing.T) {
	file := recordMatch(t, RecorderConfig{Players: 2, ChecksumEvery: 3, States: true}, 150)
	for i := range file {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			bad := bytes.Clone(file)
			bad[i] ^= x
			_, err := replayAll(bad, ReplayerConfig{}, simWorld)
			require.Error(t, err, "byte %d ^ %#x", i, x)
			require.True(t, isRecordErr(err), "byte %d: %v", i, err)
		}
	}
}

func isRecordErr(err error) bool {
	for _, e := range []error{ErrFormat, ErrVersion, ErrSettings, ErrCorrupt, ErrTruncated, ErrMismatch} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// Every prefix of a recording is refused as cut short (or, for a few
// bytes, as no recording), after replaying what it holds.
func TestReplayTruncated(t *testing.T) {
	file := recordMatch(t, RecorderConfig{Players: 2}, 200)
	for n := range len(file) {
		p, err := replayAll(file[:n], ReplayerConfig{}, simWorld)
		if n < len(recordMagic)+1 {
			require.ErrorIs(t, err, ErrFormat, "prefix %d", n)
			continue
		}
		require.ErrorIs(t, err, ErrTruncated, "prefix %d", n)
		require.ErrorIs(t, err, io.ErrUnexpectedEOF)
		if p != nil {
			require.Equal(t, int(p.Frame()), p.Checked(), "every frame replayed was checked")
		}
	}
	// A recorder flushed but never closed (the process died) replays up
	// to the flush.
	var buf bytes.Buffer
	var w world
	r, err := NewRecorder[world, uint16](RecorderConfig{Players: 2}, &buf, &w)
	require.NoError(t, err)
	for f := range 100 {
		simWorld(&w, []uint16{1, 2}, rollnet.Frame(f))
		require.NoError(t, r.Record([]uint16{1, 2}, &w))
	}
	require.NoError(t, r.Flush())
	p, err := replayAll(buf.Bytes(), ReplayerConfig{}, simWorld)
	require.ErrorIs(t, err, ErrTruncated)
	require.Equal(t, 100, p.Checked())
}

type otherWorld struct {
	A [3]uint64
}

func TestReplayForeign(t *testing.T) {
	file := recordMatch(t, RecorderConfig{Players: 2, Settings: 9}, 10)
	sim := func(*otherWorld, []uint16, rollnet.Frame) {}
	for _, tc := range []struct {
		name string
		err  error
		run  func() error
	}{
		{"settings", ErrSettings, func() error { _, err := replayAll(file, ReplayerConfig{Settings: 8}, simWorld); return err }},
		{"players", ErrSettings, func() error {
			_, err := replayAll(file, ReplayerConfig{Settings: 9, Players: 3}, simWorld)
			return err
		}},
		{"state type", ErrSettings, func() error {
			_, err := NewReplayer[otherWorld, uint16](ReplayerConfig{Settings: 9}, bytes.NewReader(file), sim)
			return err
		}},
		{"input type", ErrSettings, func() error {
			_, err := NewReplayer[world, uint32](ReplayerConfig{Settings: 9}, bytes.NewReader(file), func(*world, []uint32, rollnet.Frame) {})
			return err
		}},
		{"a PNG", ErrFormat, func() error {
			_, err := replayAll([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), ReplayerConfig{}, simWorld)
			return err
		}},
		{"empty", ErrFormat, func() error { _, err := replayAll(nil, ReplayerConfig{}, simWorld); return err }},
		{"version 2", ErrVersion, func() error {
			bad := bytes.Clone(file)
			bad[len(recordMagic)] = 2
			_, err := replayAll(bad, ReplayerConfig{Settings: 9}, simWorld)
			return err
		}},
		{"trailing bytes", ErrCorrupt, func() error {
			_, err := replayAll(append(bytes.Clone(file), 0), ReplayerConfig{Settings: 9}, simWorld)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			require.ErrorIs(t, err, tc.err)
			t.Log(err)
		})
	}
}

func TestRecorderRefuses(t *testing.T) {
	var w world
	type wide struct{ B [33]byte }
	_, err := NewRecorder[world, uint16](RecorderConfig{}, io.Discard, &w)
	require.ErrorIs(t, err, errConfig)
	_, err = NewRecorder[world, uint16](RecorderConfig{Players: 65}, io.Discard, &w)
	require.ErrorIs(t, err, errConfig)
	_, err = NewRecorder[world, uint16](RecorderConfig{Players: 2, ChecksumEvery: -1}, io.Discard, &w)
	require.ErrorIs(t, err, errConfig)
	_, err = NewRecorder[world, wide](RecorderConfig{Players: 1}, io.Discard, &w)
	require.ErrorIs(t, err, errConfig)
	_, err = NewRecorder[world, [32]byte](RecorderConfig{Players: 33}, io.Discard, &w)
	require.ErrorIs(t, err, errConfig)
	_, err = NewRecorder[struct{ S string }, uint16](RecorderConfig{Players: 1}, io.Discard, &struct{ S string }{}) //rollnet:ok the state type is refused on purpose
	require.ErrorIs(t, err, errConfig)
	_, err = NewRecorder[world, uint16](RecorderConfig{Players: 1}, nil, &w)
	require.ErrorIs(t, err, errConfig)

	r, err := NewRecorder[world, uint16](RecorderConfig{Players: 2}, io.Discard, &w)
	require.NoError(t, err)
	require.ErrorIs(t, r.Record([]uint16{1}, &w), ErrArgument)
	require.NoError(t, r.Close())
	require.ErrorIs(t, r.Record([]uint16{1, 2}, &w), errClosed)
	require.ErrorIs(t, r.Close(), errClosed)
	require.ErrorIs(t, r.Flush(), errClosed)

	// A write error is returned, and again by every later call.
	fail := errors.New("disk full")
	r, err = NewRecorder[world, uint16](RecorderConfig{Players: 2}, &failAfter{n: 100, err: fail}, &w)
	require.NoError(t, err)
	var got error
	for f := 0; f < 1000 && got == nil; f++ {
		got = r.Record([]uint16{uint16(f), 0}, &w)
	}
	require.ErrorIs(t, got, fail)
	require.ErrorIs(t, r.Record([]uint16{1, 2}, &w), fail)
	require.ErrorIs(t, r.Close(), fail)
}

type failAfter struct {
	n   int
	err error
}

func (f *failAfter) Write(b []byte) (int, error) {
	if f.n -= len(b); f.n < 0 {
		return 0, f.err
	}
	return len(b), nil
}

// Inputs that change every frame for 64 players do not fit a block in one
// codec message: the recorder splits it, and the replay agrees.
func TestRecordSplitsWideBlocks(t *testing.T) {
	type pad [16]byte
	var buf bytes.Buffer
	var w world
	sim := func(w *world, in []pad, f rollnet.Frame) {
		for p := range in {
			w.Acc[p%8] += rollback.Checksum(in[p][:])
		}
	}
	r, err := NewRecorder[world, pad](RecorderConfig{Players: 64}, &buf, &w)
	require.NoError(t, err)
	in := make([]pad, 64)
	rnd := rollnet.NewRand(5)
	for f := range 200 {
		for p := range in {
			for i := range in[p] {
				in[p][i] = byte(rnd.Uint32())
			}
		}
		sim(&w, in, rollnet.Frame(f))
		require.NoError(t, r.Record(in, &w))
	}
	require.NoError(t, r.Close())
	p, err := NewReplayer[world, pad](ReplayerConfig{}, bytes.NewReader(buf.Bytes()), sim)
	require.NoError(t, err)
	require.NoError(t, p.Run())
	require.Equal(t, 200, p.Checked())
}

// A forged initial state with a bool byte that is no Go bool is refused.
func TestReplayRefusesForgedBool(t *testing.T) {
	type flag struct {
		On bool
		_  [7]byte
	}
	var buf bytes.Buffer
	_, err := NewRecorder[flag, uint8](RecorderConfig{Players: 1}, &buf, &flag{On: true})
	require.NoError(t, err)
	file := buf.Bytes()
	// The header chunk ends the file: its payload ends with the 8-byte
	// state, then the CRC. Set the bool's byte to 2 and fix the CRC, as a
	// forger would.
	payloadEnd := len(file) - 4
	file[payloadEnd-8] = 2
	crc := rollback.Checksum(file[len(recordMagic)+1 : payloadEnd])
	file[payloadEnd], file[payloadEnd+1], file[payloadEnd+2], file[payloadEnd+3] = byte(crc), byte(crc>>8), byte(crc>>16), byte(crc>>24)
	_, err = NewReplayer[flag, uint8](ReplayerConfig{}, bytes.NewReader(file), func(*flag, []uint8, rollnet.Frame) {})
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "bool")
}

func TestAllocsRecordAndReplay(t *testing.T) {
	skipUnderRace(t)
	var w world
	r, err := NewRecorder[world, uint16](RecorderConfig{Players: 2, States: true}, io.Discard, &w)
	require.NoError(t, err)
	in := []uint16{0, 0}
	f := 0
	allocs.RequireZero(t, 2000, func() {
		in[0], in[1] = uint16(f/7%3), uint16(f/5%4)
		simWorld(&w, in, rollnet.Frame(f))
		if err := r.Record(in, &w); err != nil {
			panic(err)
		}
		f++
	}, "Record")

	file := recordMatch(t, RecorderConfig{Players: 2}, 5000)
	p, err := NewReplayer[world, uint16](ReplayerConfig{}, bytes.NewReader(file), simWorld)
	require.NoError(t, err)
	allocs.RequireZero(t, 4000, func() {
		if err := p.AdvanceFrame(); err != nil {
			panic(err)
		}
	}, "Step")
}

// TestShortFileSaysItsSize: a file too short to be a recording is refused
// as no recording, with its own size (not "0 bytes").
func TestShortFileSaysItsSize(t *testing.T) {
	_, err := replayAll([]byte("garbag"), ReplayerConfig{}, simWorld)
	require.ErrorIs(t, err, ErrFormat)
	require.ErrorContains(t, err, "(6 bytes, shorter than a recording's 9-byte start)")
}
