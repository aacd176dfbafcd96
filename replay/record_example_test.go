package replay_test

import (
	"bytes"
	"fmt"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/replay"
	"github.com/rollnet/rollnet/session"
)

// game is a tiny deterministic state: two positions and a PRNG, all
// fixed-width and pointer-free.
type game struct {
	R rollnet.Rand
	X [2]int32
}

// move applies both players' inputs (0 left, 1 stay, 2 right) and a
// little in-state randomness.
func move(g *game, in []uint8, _ rollnet.Frame) {
	for p, b := range in {
		g.X[p] += int32(b) - 1
	}
	if g.R.Uint32N(8) == 0 {
		g.X[0], g.X[1] = g.X[1], g.X[0]
	}
}

// A match is recorded as it is played (here by one session and a loop;
// a P2P session or a spectator records itself with SetRecorder), then
// replayed: by the same simulation, and by one changed in a new release.
func ExampleNewRecorder() {
	s, _ := session.New[game](session.Config[uint8]{Players: 2}, move)
	s.State().R = rollnet.NewRand(1)
	var file bytes.Buffer
	rec, err := replay.NewRecorder[game, uint8](replay.RecorderConfig{Players: 2, Settings: 1, States: true}, &file, s.State())
	if err != nil {
		panic(err)
	}
	for f := range 600 {
		in := []uint8{uint8(f / 10 % 3), uint8(f / 7 % 3)}
		_ = s.AddLocalInput(0, in[0])
		_ = s.AddLocalInput(1, in[1])
		_ = s.AdvanceFrame()
		_ = rec.Record(in, s.State())
	}
	_ = rec.Close()
	fmt.Printf("%d frames in %d bytes\n", rec.Frame(), file.Len())

	p, _ := replay.NewReplayer[game, uint8](replay.ReplayerConfig{Settings: 1}, bytes.NewReader(file.Bytes()), move)
	fmt.Println("replay:", p.Run(), "-", p.Checked(), "checksums agree")

	// Release 2 moves player 1 twice as fast from frame 400 on.
	moveV2 := func(g *game, in []uint8, f rollnet.Frame) {
		move(g, in, f)
		if f >= 400 {
			g.X[1] += int32(in[1]) - 1
		}
	}
	p, _ = replay.NewReplayer[game, uint8](replay.ReplayerConfig{Settings: 1}, bytes.NewReader(file.Bytes()), moveV2)
	fmt.Println(p.Run())
	// Output:
	// 600 frames in 17319 bytes
	// replay: <nil> - 600 checksums agree
	// replay: state differs from the recording: frame 400: recorded checksum 30b3cac6, replayed edf6607e (last agreed: frame 399); game.X[1]: -9 recorded, -10 replayed
}
