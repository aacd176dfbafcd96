package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// playRecorded plays a mirror match of 600 frames on a clean link, the
// left side recording into dir/name; inject > 0 corrupts the left side's
// state at that frame (-inject-desync).
func playRecorded(t *testing.T, dir, name string, inject int) string {
	file := filepath.Join(dir, name)
	m := newMirror(t, 9, local.Link{Latency: 20 * time.Millisecond}, 3)
	dbg, err := debugTo(m.a.p2p(), options{record: file}, 0)
	require.NoError(t, err)
	m.a.dbg = dbg
	m.a.o.inject = inject
	for m.a.p2p().Frame() < 600 || m.b.p2p().Frame() < 600 {
		m.tick(t)
	}
	require.NoError(t, m.a.Close())
	return file
}

func replayDemo(t *testing.T, file string) (int, string) {
	var out, errOut bytes.Buffer
	code := run([]string{"-replay", file, "-headless"}, &out, &errOut)
	t.Logf("exit %d\n%s%s", code, &out, &errOut)
	return code, out.String() + errOut.String()
}

// A side that plays with -record writes a file that -replay (headless)
// checks: ok for the match as played; a match whose recorded side had its
// state corrupted is reported at that frame with the field; a file cut
// short or not a recording is refused.
func TestRecordReplay(t *testing.T) {
	dir := t.TempDir()
	file := playRecorded(t, dir, "match.rnr", 0)
	code, out := replayDemo(t, file)
	require.Equal(t, exitOK, code)
	require.Contains(t, out, "result              ok")

	code, out = replayDemo(t, playRecorded(t, dir, "desync.rnr", 300))
	require.Equal(t, exitDesync, code)
	require.Contains(t, out, "first difference    frame 300 (last agreed: frame 299)")
	require.Contains(t, out, "State.Wins[0]: 1 recorded, 0 replayed")

	data, err := os.ReadFile(file)
	require.NoError(t, err)
	cut := filepath.Join(dir, "cut.rnr")
	require.NoError(t, os.WriteFile(cut, data[:len(data)/2], 0o644))
	code, out = replayDemo(t, cut)
	require.Equal(t, exitFailure, code)
	require.Contains(t, out, "cut short")

	code, out = replayDemo(t, filepath.Join("game.go"))
	require.Equal(t, exitFailure, code)
	require.Contains(t, out, "not a rollnet recording")
}

// A desync's report names the field where the two sides parted: each side
// writes its state of the frame, and each finds the other's on this
// machine.
func TestDesyncForensics(t *testing.T) {
	m := newMirror(t, 9, local.Link{Latency: 20 * time.Millisecond}, 3)
	m.a.o.inject = 300
	for m.a.p2p().Frame() < 600 || m.b.p2p().Frame() < 600 {
		m.tick(t)
	}
	ra, rb := m.a.Report(), m.b.Report()
	require.Equal(t, "frame 300: State.Wins[0]: 1 here, 0 at peer right", ra.Forensics)
	require.Equal(t, "frame 300: State.Wins[0]: 0 here, 1 at peer left", rb.Forensics)
	var out bytes.Buffer
	ra.print(&out)
	require.Contains(t, out.String(), "  desync forensics    frame 300: State.Wins[0]: 1 here, 0 at peer right")
	t.Logf("\n%s", &out)

	// Without the other side's file, the report says where this side's is.
	require.NoError(t, os.Remove(stateFile(m.b.dbg.seed, 1, 300)))
	require.Contains(t, m.a.Report().Forensics, "this side's state is in")
	// A match without a desync has no forensics line.
	m2 := newMirror(t, 10, local.Link{Latency: 20 * time.Millisecond}, 3)
	m2.tick(t)
	require.Empty(t, m2.a.Report().Forensics)
}
