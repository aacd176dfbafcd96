package session_test

import (
	"bytes"
	"fmt"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/session"
)

// A match is recorded as it is played (here by one session and a loop;
// a P2P session or a spectator records itself with SetRecorder), then
// replayed: by the same simulation, and by one changed in a new release.
func ExampleNewRecorder() {
	s, _ := session.New[game](session.Config[uint8]{Players: 2}, move)
	s.State().R = rollnet.NewRand(1)
	var file bytes.Buffer
	rec, err := session.NewRecorder[game, uint8](&file, session.RecordConfig{Players: 2, Settings: 1, States: true}, s.State())
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

	p, _ := session.NewReplayer[game, uint8](bytes.NewReader(file.Bytes()), session.ReplayConfig{Settings: 1}, move)
	fmt.Println("replay:", p.Run(), "-", p.Checked(), "checksums agree")

	// Release 2 moves player 1 twice as fast from frame 400 on.
	moveV2 := func(g *game, in []uint8, f rollnet.Frame) {
		move(g, in, f)
		if f >= 400 {
			g.X[1] += int32(in[1]) - 1
		}
	}
	p, _ = session.NewReplayer[game, uint8](bytes.NewReader(file.Bytes()), session.ReplayConfig{Settings: 1}, moveV2)
	fmt.Println(p.Run())
	// Output:
	// 600 frames in 17319 bytes
	// replay: <nil> - 600 checksums agree
	// session: replay differs from the recording: frame 400: recorded checksum 30b3cac6, replayed edf6607e (last agreed: frame 399); game.X[1]: -9 recorded, -10 replayed
}
