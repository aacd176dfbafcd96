package session

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/rollnet/rollnet/rollback"
	"github.com/stretchr/testify/require"
)

// recordMatch records frames of the test world with inputs that change
// now and then (as a player's do) and returns the file.
func recordMatch(t testing.TB, cfg RecordConfig, frames int) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w world
	w.R = NewRand(7)
	r, err := NewRecorder[world, uint16](&buf, cfg, &w)
	require.NoError(t, err)
	in := make([]uint16, cfg.Players)
	for f := range frames {
		for p := range in {
			in[p] = uint16((f/(5+p) + p) % 4)
		}
		simWorld(&w, in, Frame(f))
		require.NoError(t, r.Record(in, &w))
	}
	require.NoError(t, r.Close())
	return buf.Bytes()
}

func replayAll(file []byte, cfg ReplayConfig, sim func(*world, []uint16, Frame)) (*Replayer[world, uint16], error) {
	p, err := NewReplayer[world, uint16](bytes.NewReader(file), cfg, sim)
	if err != nil {
		return nil, err
	}
	return p, p.Run()
}

func TestRecordReplay(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cfg     RecordConfig
		frames  int
		checked int
	}{
		{"every frame", RecordConfig{Players: 2}, 1000, 1000},
		{"every 7, states", RecordConfig{Players: 3, ChecksumEvery: 7, States: true, Settings: 42}, 1000, 142},
		{"one frame", RecordConfig{Players: 1}, 1, 1},
		{"no frames", RecordConfig{Players: 2}, 0, 0},
		{"a block exactly", RecordConfig{Players: 2, ChecksumEvery: 64}, 128, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := recordMatch(t, tc.cfg, tc.frames)
			p, err := replayAll(file, ReplayConfig{Settings: tc.cfg.Settings}, simWorld)
			require.NoError(t, err)
			require.Equal(t, Frame(tc.frames), p.Frame())
			require.Equal(t, tc.checked, p.Checked())
			require.Equal(t, tc.cfg.Players, p.Players())
			require.ErrorIs(t, p.Step(), io.EOF, "the end stays the end")
		})
	}
}

// The recorder and a session agree: a session's confirmed frames,
// recorded as they are confirmed, replay to the session's checksums.
func TestRecordSessionFrames(t *testing.T) {
	s := newWorld(t, Config[uint16]{Players: 2, InputDelay: 2})
	s.State().R = NewRand(3)
	var buf bytes.Buffer
	r, err := NewRecorder[world, uint16](&buf, RecordConfig{Players: 2}, s.State())
	require.NoError(t, err)
	var want []uint32
	in := make([]uint16, 2)
	for f := range 300 {
		require.NoError(t, s.AddLocalInput(0, uint16(f/9%3)))
		require.NoError(t, s.AddLocalInput(1, uint16(f/4%5)))
		require.NoError(t, s.Step())
		g := s.Frame() - 1
		for p := range in {
			in[p], _ = s.confirmedInput(p, g)
		}
		st, err := s.StateAt(g)
		require.NoError(t, err)
		require.NoError(t, r.Record(in, st))
		sum, _ := s.ChecksumAt(g)
		want = append(want, sum)
	}
	require.NoError(t, r.Close())
	p, err := NewReplayer[world, uint16](bytes.NewReader(buf.Bytes()), ReplayConfig{Players: 2}, simWorld)
	require.NoError(t, err)
	for f := range 300 {
		require.NoError(t, p.Step())
		require.Equal(t, want[f], worldSum(p.State()), "frame %d", f)
	}
	require.ErrorIs(t, p.Step(), io.EOF)
}

// A simulation that changes at frame 500 is caught at frame 500, and with
// states recorded the error names the field.
func TestReplayMismatch(t *testing.T) {
	drift := func(w *world, in []uint16, f Frame) {
		simWorld(w, in, f)
		if f == 500 {
			w.Acc[3]++
		}
	}
	file := recordMatch(t, RecordConfig{Players: 2}, 1000)
	_, err := replayAll(file, ReplayConfig{}, drift)
	var me *ReplayMismatchError
	require.ErrorAs(t, err, &me)
	require.ErrorIs(t, err, ErrReplayMismatch)
	require.Equal(t, Frame(500), me.Frame)
	require.Equal(t, Frame(499), me.LastAgreed)
	require.Empty(t, me.Fields)

	file = recordMatch(t, RecordConfig{Players: 2, ChecksumEvery: 10, States: true}, 1000)
	p, err := replayAll(file, ReplayConfig{}, drift)
	require.ErrorAs(t, err, &me)
	require.Equal(t, Frame(509), me.Frame)
	require.Equal(t, Frame(499), me.LastAgreed)
	require.Equal(t, 50, p.Checked())
	require.NotEmpty(t, me.Fields)
	require.Equal(t, len(me.Fields), min(me.Differ, 8))
	require.Contains(t, err.Error(), "world.Acc[")
	require.ErrorIs(t, p.Step(), ErrReplayMismatch, "sticky")
}

// Every byte of a recording matters: flipping any one is an error, never
// a panic, and never a replay that claims success.
func TestReplayCorruptEveryByte(t *testing.T) {
	file := recordMatch(t, RecordConfig{Players: 2, ChecksumEvery: 3, States: true}, 150)
	for i := range file {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			bad := bytes.Clone(file)
			bad[i] ^= x
			_, err := replayAll(bad, ReplayConfig{}, simWorld)
			require.Error(t, err, "byte %d ^ %#x", i, x)
			require.True(t, isRecordErr(err), "byte %d: %v", i, err)
		}
	}
}

func isRecordErr(err error) bool {
	for _, e := range []error{ErrRecordFormat, ErrRecordVersion, ErrRecordSettings, ErrRecordCorrupt, ErrRecordTruncated, ErrReplayMismatch} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// Every prefix of a recording is refused as cut short (or, for a few
// bytes, as no recording), after replaying what it holds.
func TestReplayTruncated(t *testing.T) {
	file := recordMatch(t, RecordConfig{Players: 2}, 200)
	for n := range len(file) {
		p, err := replayAll(file[:n], ReplayConfig{}, simWorld)
		if n < len(recordMagic)+1 {
			require.ErrorIs(t, err, ErrRecordFormat, "prefix %d", n)
			continue
		}
		require.ErrorIs(t, err, ErrRecordTruncated, "prefix %d", n)
		require.ErrorIs(t, err, io.ErrUnexpectedEOF)
		if p != nil {
			require.Equal(t, int(p.Frame()), p.Checked(), "every frame replayed was checked")
		}
	}
	// A recorder flushed but never closed (the process died) replays up
	// to the flush.
	var buf bytes.Buffer
	var w world
	r, err := NewRecorder[world, uint16](&buf, RecordConfig{Players: 2}, &w)
	require.NoError(t, err)
	for f := range 100 {
		simWorld(&w, []uint16{1, 2}, Frame(f))
		require.NoError(t, r.Record([]uint16{1, 2}, &w))
	}
	require.NoError(t, r.Flush())
	p, err := replayAll(buf.Bytes(), ReplayConfig{}, simWorld)
	require.ErrorIs(t, err, ErrRecordTruncated)
	require.Equal(t, 100, p.Checked())
}

type otherWorld struct {
	A [3]uint64
}

func TestReplayForeign(t *testing.T) {
	file := recordMatch(t, RecordConfig{Players: 2, Settings: 9}, 10)
	sim := func(*otherWorld, []uint16, Frame) {}
	for _, tc := range []struct {
		name string
		err  error
		run  func() error
	}{
		{"settings", ErrRecordSettings, func() error { _, err := replayAll(file, ReplayConfig{Settings: 8}, simWorld); return err }},
		{"players", ErrRecordSettings, func() error {
			_, err := replayAll(file, ReplayConfig{Settings: 9, Players: 3}, simWorld)
			return err
		}},
		{"state type", ErrRecordSettings, func() error {
			_, err := NewReplayer[otherWorld, uint16](bytes.NewReader(file), ReplayConfig{Settings: 9}, sim)
			return err
		}},
		{"input type", ErrRecordSettings, func() error {
			_, err := NewReplayer[world, uint32](bytes.NewReader(file), ReplayConfig{Settings: 9}, func(*world, []uint32, Frame) {})
			return err
		}},
		{"a PNG", ErrRecordFormat, func() error {
			_, err := replayAll([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), ReplayConfig{}, simWorld)
			return err
		}},
		{"empty", ErrRecordFormat, func() error { _, err := replayAll(nil, ReplayConfig{}, simWorld); return err }},
		{"version 2", ErrRecordVersion, func() error {
			bad := bytes.Clone(file)
			bad[len(recordMagic)] = 2
			_, err := replayAll(bad, ReplayConfig{Settings: 9}, simWorld)
			return err
		}},
		{"trailing bytes", ErrRecordCorrupt, func() error {
			_, err := replayAll(append(bytes.Clone(file), 0), ReplayConfig{Settings: 9}, simWorld)
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
	_, err := NewRecorder[world, uint16](io.Discard, RecordConfig{}, &w)
	require.ErrorIs(t, err, ErrConfig)
	_, err = NewRecorder[world, uint16](io.Discard, RecordConfig{Players: 65}, &w)
	require.ErrorIs(t, err, ErrConfig)
	_, err = NewRecorder[world, uint16](io.Discard, RecordConfig{Players: 2, ChecksumEvery: -1}, &w)
	require.ErrorIs(t, err, ErrConfig)
	_, err = NewRecorder[world, wide](io.Discard, RecordConfig{Players: 1}, &w)
	require.ErrorIs(t, err, ErrConfig)
	_, err = NewRecorder[world, [32]byte](io.Discard, RecordConfig{Players: 33}, &w)
	require.ErrorIs(t, err, ErrConfig)
	_, err = NewRecorder[struct{ S string }, uint16](io.Discard, RecordConfig{Players: 1}, &struct{ S string }{}) //rollnet:ok the state type is refused on purpose
	require.ErrorIs(t, err, ErrConfig)
	_, err = NewRecorder[world, uint16](nil, RecordConfig{Players: 1}, &w)
	require.ErrorIs(t, err, ErrConfig)

	r, err := NewRecorder[world, uint16](io.Discard, RecordConfig{Players: 2}, &w)
	require.NoError(t, err)
	require.ErrorIs(t, r.Record([]uint16{1}, &w), ErrArgument)
	require.NoError(t, r.Close())
	require.ErrorIs(t, r.Record([]uint16{1, 2}, &w), ErrRecordClosed)
	require.ErrorIs(t, r.Close(), ErrRecordClosed)
	require.ErrorIs(t, r.Flush(), ErrRecordClosed)

	// A write error is returned, and again by every later call.
	fail := errors.New("disk full")
	r, err = NewRecorder[world, uint16](&failAfter{n: 100, err: fail}, RecordConfig{Players: 2}, &w)
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
	sim := func(w *world, in []pad, f Frame) {
		for p := range in {
			w.Acc[p%8] += rollback.Checksum(in[p][:])
		}
	}
	r, err := NewRecorder[world, pad](&buf, RecordConfig{Players: 64}, &w)
	require.NoError(t, err)
	in := make([]pad, 64)
	rnd := NewRand(5)
	for f := range 200 {
		for p := range in {
			for i := range in[p] {
				in[p][i] = byte(rnd.Uint32())
			}
		}
		sim(&w, in, Frame(f))
		require.NoError(t, r.Record(in, &w))
	}
	require.NoError(t, r.Close())
	p, err := NewReplayer[world, pad](bytes.NewReader(buf.Bytes()), ReplayConfig{}, sim)
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
	_, err := NewRecorder[flag, uint8](&buf, RecordConfig{Players: 1}, &flag{On: true})
	require.NoError(t, err)
	file := buf.Bytes()
	// The header chunk ends the file: its payload ends with the 8-byte
	// state, then the CRC. Set the bool's byte to 2 and fix the CRC, as a
	// forger would.
	payloadEnd := len(file) - 4
	file[payloadEnd-8] = 2
	crc := rollback.Checksum(file[len(recordMagic)+1 : payloadEnd])
	file[payloadEnd], file[payloadEnd+1], file[payloadEnd+2], file[payloadEnd+3] = byte(crc), byte(crc>>8), byte(crc>>16), byte(crc>>24)
	_, err = NewReplayer[flag, uint8](bytes.NewReader(file), ReplayConfig{}, func(*flag, []uint8, Frame) {})
	require.ErrorIs(t, err, ErrRecordCorrupt)
	require.ErrorContains(t, err, "bool")
}

func TestAllocsRecordAndReplay(t *testing.T) {
	skipUnderRace(t)
	var w world
	r, err := NewRecorder[world, uint16](io.Discard, RecordConfig{Players: 2, States: true}, &w)
	require.NoError(t, err)
	in := []uint16{0, 0}
	f := 0
	allocs := testing.AllocsPerRun(2000, func() {
		in[0], in[1] = uint16(f/7%3), uint16(f/5%4)
		simWorld(&w, in, Frame(f))
		if err := r.Record(in, &w); err != nil {
			panic(err)
		}
		f++
	})
	require.Zero(t, allocs, "Record")

	file := recordMatch(t, RecordConfig{Players: 2}, 5000)
	p, err := NewReplayer[world, uint16](bytes.NewReader(file), ReplayConfig{}, simWorld)
	require.NoError(t, err)
	allocs = testing.AllocsPerRun(4000, func() {
		if err := p.Step(); err != nil {
			panic(err)
		}
	})
	require.Zero(t, allocs, "Step")
}
