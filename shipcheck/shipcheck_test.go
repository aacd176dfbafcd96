package shipcheck

import (
	"bytes"
	"testing"

	"github.com/rollnet/rollnet"
	"github.com/stretchr/testify/require"
)

type world struct {
	X, Y int32
	Hot  bool
	_    [3]byte
}

type buttons struct {
	Push uint8
	Fire bool
}

func walk(w *world, in []buttons, _ rollnet.Frame) {
	for _, b := range in {
		w.X += int32(b.Push & 3)
		if b.Fire {
			w.Y++
		}
	}
}

func game() Game[world, buttons] {
	return Game[world, buttons]{Name: "walk", Players: 2, Initial: world{X: 5}, Simulate: walk, Frames: 120}
}

// A deterministic game passes as a plain test, and its random inputs move
// it (bool fields drawn 0 or 1, else the recorder would refuse them).
func TestRunAgrees(t *testing.T) {
	Run(t, game())
	var rec bytes.Buffer
	res := syncTest(game(), 120, 7, &rec)
	require.True(t, res.Agreed, res.Summary())
	require.Equal(t, "walk: sync test on "+res.Arch+": 120 frames agreed (random inputs, seed 7)", res.Summary())
	res = replayRecording(game(), rec.Bytes())
	require.True(t, res.Agreed, res.Summary())
	require.Equal(t, 120, res.Frames)
}

// A simulation that differs when a frame is simulated again: the sync
// test names the frame, the field and both values.
func TestSyncTestNamesField(t *testing.T) {
	g := game()
	var calls int32
	g.Simulate = func(w *world, in []buttons, f rollnet.Frame) {
		walk(w, in, f)
		if f == 40 {
			calls++
			w.Y += calls
		}
	}
	res := syncTest(g, 120, 1, &bytes.Buffer{})
	require.False(t, res.Agreed)
	require.Empty(t, res.Err)
	require.Equal(t, int64(40), res.Frame)
	require.Equal(t, "world.Y", res.Field)
	require.Equal(t, 1, res.Differ)
	require.Contains(t, res.Summary(), ": frame 40 differs first, at world.Y: ")
}

// A replay by a simulation that differs from the recorded one (as another
// architecture's would) names the first frame and field; an initial state
// built differently is frame -1.
func TestReplayNamesField(t *testing.T) {
	var rec bytes.Buffer
	require.True(t, syncTest(game(), 120, 1, &rec).Agreed)
	g := game()
	g.Simulate = func(w *world, in []buttons, f rollnet.Frame) {
		walk(w, in, f)
		if f >= 70 {
			w.X++
		}
	}
	res := replayRecording(g, rec.Bytes())
	require.False(t, res.Agreed)
	require.Equal(t, int64(70), res.Frame)
	require.Equal(t, "world.X", res.Field)
	require.Equal(t, 70, res.Frames)
	require.Contains(t, res.Summary(), ": frame 70 differs first, at world.X: ")
	require.Contains(t, res.Summary(), " recorded, ")

	g = game()
	g.Initial.Hot = true
	res = replayRecording(g, rec.Bytes())
	require.Equal(t, int64(-1), res.Frame)
	require.Equal(t, "world.Hot", res.Field)
	require.Contains(t, res.Summary(), ": the initial state differs, at world.Hot: false recorded, true built here")
}
