package p2p_test

import (
	"fmt"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/p2p"
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

// Two peers over the in-memory network, 30 ms apart, on a fake clock:
// each runs the game loop, and they agree on every confirmed frame.
func ExampleNew() {
	clock := local.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	network, _ := local.NewNetwork(local.Config{Seed: 1, Now: clock.Now, Link: local.Link{Latency: 30 * time.Millisecond}})

	peers := make([]*p2p.Session[Pong, uint8], 2)
	for i, name := range []string{"alice", "bob"} {
		ep, _ := network.Endpoint(name)
		remote := []transport.Peer{"", "bob"} // alice holds player 0
		if i == 1 {
			remote = []transport.Peer{"alice", ""} // bob holds player 1
		}
		nonce := uint64(i)
		p, err := p2p.New[Pong](p2p.Config[uint8]{
			Session: session.Config[uint8]{Players: 2, InputDelay: 2, Capacity: 16},
			Remote:  remote,
			Net: rollnet.NetConfig{
				Now:    clock.Now,
				Tuning: rollnet.NetTuning{Rand: func() uint64 { nonce += 2; return nonce }},
			},
		}, ep, simulatePong)
		if err != nil {
			fmt.Println(err)
			return
		}
		// Both start from the same state: paddles mid-court.
		_ = p.SetInitialState(Pong{Paddle: [2]int32{10, 10}})
		peers[i] = p
	}

	var events []rollnet.Event
	for tick := 0; peers[0].Frame() < 300 || peers[1].Frame() < 300; tick++ {
		for i, p := range peers {
			if p.WaitRecommendation() > 0 {
				_ = p.Poll()
				continue
			}
			_ = p.AddLocalInput(i, uint8(tick/20%4)) // alice and bob press buttons
			_ = p.AdvanceFrame()                     // ErrNotSynchronized at first
			events = p.Events(events[:0])
			for _, e := range events {
				if e.Kind == rollnet.EventRunning {
					fmt.Printf("peer %d running\n", i)
				}
			}
		}
		clock.Advance(time.Second / 60)
	}
	// Compare at a frame both have confirmed and simulated.
	f := min(peers[0].ConfirmedFrame(), peers[1].ConfirmedFrame(), peers[0].Frame()-1, peers[1].Frame()-1)
	a, errA := peers[0].ChecksumAt(f)
	b, errB := peers[1].ChecksumAt(f)
	fmt.Println("agree:", errA == nil && errB == nil && a == b)
	// Output:
	// peer 0 running
	// peer 1 running
	// agree: true
}

// A spectator joins a match already running: alice keeps an archive of
// the confirmed inputs and feeds it to carol in bulk; carol replays the
// match from its start, fast-forwarding (CatchingUp: frames a game would
// not draw, showing Behind instead), and is live within a few ticks.
func ExampleSession_AddSpectator() {
	clock := local.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	network, _ := local.NewNetwork(local.Config{Seed: 2, Now: clock.Now, Link: local.Link{Latency: 20 * time.Millisecond}})
	nonce := uint64(0)
	netCfg := rollnet.NetConfig{Now: clock.Now, Tuning: rollnet.NetTuning{Rand: func() uint64 { nonce++; return nonce }}}

	peers := make([]*p2p.Session[Pong, uint8], 2)
	for i, name := range []string{"alice", "bob"} {
		ep, _ := network.Endpoint(name)
		cfg := p2p.Config[uint8]{
			Session: session.Config[uint8]{Players: 2, InputDelay: 2},
			Remote:  []transport.Peer{"", "bob"},
			Net:     netCfg,
		}
		if i == 1 {
			cfg.Remote = []transport.Peer{"alice", ""}
		} else {
			cfg.SpectatorArchive = 60 * 60 * 10 // ten minutes at 60 fps
		}
		peers[i], _ = p2p.New[Pong](cfg, ep, simulatePong)
	}
	var carol *p2p.Spectator[Pong, uint8]
	live := 0 // the tick carol was live
	for tick := 0; carol == nil || carol.Frame() < 1200 || carol.Behind() > 2; tick++ {
		for i, p := range peers {
			_ = p.AddLocalInput(i, uint8(tick/20%4))
			_ = p.AdvanceFrame()
		}
		if carol != nil {
			_ = carol.AdvanceFrame()
			if carol.CatchingUp() {
				// A game draws no frame but the progress: carol.Behind()
				// frames to go.
			} else if live == 0 && carol.Frame() > 900 {
				live = tick // a game draws carol.State()
			}
		}
		if tick == 900 { // fifteen seconds in, carol wants to watch
			if err := peers[0].AddSpectator("carol"); err != nil {
				fmt.Println(err)
				return
			}
			ep, _ := network.Endpoint("carol")
			carol, _ = p2p.NewSpectator[Pong, uint8](p2p.SpectatorConfig{
				Players: 2, InputDelay: 2, Host: "alice", Net: netCfg}, ep, simulatePong)
		}
		clock.Advance(time.Second / 60)
	}
	f := carol.Frame() - 1
	a, errA := peers[0].ChecksumAt(f)
	c, errC := carol.ChecksumAt(f)
	fmt.Println("carol agrees with alice:", errA == nil && errC == nil && a == c)
	fmt.Printf("carol live %d ticks after joining, its handshake included\n", live-900)
	st, _ := peers[0].PeerStats("carol")
	fmt.Println("checksums compared with carol all agreed:", st.ChecksumsCompared > 0 && st.ChecksumsCompared == st.ChecksumsAgreed)
	// Output:
	// carol agrees with alice: true
	// carol live 23 ticks after joining, its handshake included
	// checksums compared with carol all agreed: true
}
