package replay_test

import (
	"bytes"
	"fmt"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/p2p"
	"github.com/rollnet/rollnet/replay"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// Pong is a tiny game state: pointer-free, fixed-width fields.
type Pong struct {
	Paddle [2]int32
	Ticks  int32
	_      [4]byte
}

func simulatePong(s *Pong, in []uint8, _ rollnet.Frame) {
	for p, b := range in {
		if b&1 != 0 {
			s.Paddle[p]--
		}
		if b&2 != 0 {
			s.Paddle[p]++
		}
	}
	s.Ticks++
}

// Handling DesyncDetected: bob's build has a bug that moves his own
// paddle one unit too far at frame 200. Both peers keep the states of
// their last checksummed frames (KeepStates); when the checksums differ,
// each writes the state of that frame to a file, and alice, given bob's
// file, names the field where the two worlds parted.
func ExampleDescribeDesync() {
	clock := local.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	network, _ := local.NewNetwork(local.Config{Seed: 3, Now: clock.Now, Link: local.Link{Latency: 30 * time.Millisecond}})
	files := map[string]*bytes.Buffer{} // stand-ins for files on each machine

	names := []string{"alice", "bob"}
	peers := make([]*p2p.Session[Pong, uint8], 2)
	for i, name := range names {
		ep, _ := network.Endpoint(name)
		remote := []transport.Peer{"", "bob"}
		if i == 1 {
			remote = []transport.Peer{"alice", ""}
		}
		simulate := simulatePong
		if name == "bob" {
			simulate = func(s *Pong, in []uint8, f rollnet.Frame) {
				simulatePong(s, in, f)
				if f == 200 {
					s.Paddle[1]++ // the bug
				}
			}
		}
		nonce := uint64(i)
		peers[i], _ = p2p.New[Pong](p2p.Config[uint8]{
			Session: session.Config[uint8]{Players: 2, InputDelay: 2},
			Remote:  remote,
			Net: rollnet.NetConfig{Now: clock.Now, ChecksumInterval: 30,
				Tuning: rollnet.NetTuning{Rand: func() uint64 { nonce += 2; return nonce }}},
		}, ep, simulate)
		_ = peers[i].KeepStates(64) // the debug mode: about 30 s of checksummed frames
	}

	var events []rollnet.Event
	var desync rollnet.Frame = -1
	for tick := 0; tick < 600 && len(files) < 2; tick++ {
		for i, p := range peers {
			_ = p.AddLocalInput(i, uint8(tick/20%4))
			_ = p.AdvanceFrame()
			for _, e := range p.Events(events[:0]) {
				if e.Kind != rollnet.EventDesyncDetected || files[names[i]] != nil {
					continue
				}
				fmt.Printf("%s: desync at frame %d with %s\n", names[i], e.Frame, e.Peer)
				if st, ok := p.KeptState(e.Frame); ok {
					files[names[i]] = &bytes.Buffer{}
					_ = replay.WriteState(files[names[i]], e.Frame, st)
					desync = e.Frame
				}
			}
		}
		clock.Advance(time.Second / 60)
	}

	// At alice's, with bob's file copied over.
	frame, theirs, err := replay.ReadState[Pong](files["bob"])
	if err != nil {
		fmt.Println(err)
		return
	}
	ours, _ := peers[0].KeptState(desync)
	report, _ := replay.DescribeDesync(ours, theirs, "bob")
	fmt.Printf("frame %d: %s\n", frame, report)
	// Output:
	// alice: desync at frame 210 with bob
	// bob: desync at frame 210 with alice
	// frame 210: Pong.Paddle[1]: 0 here, 1 at peer bob
}
