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

// Bob's process crashes; a new one starts on another address (a phone
// that moved from Wi-Fi to mobile data, a new signaling id) with nothing
// but his saved token and the match's settings. Alice takes him back by
// his secret, knows him by his new address from then on, and both agree.
func ExampleSession_RejoinToken() {
	clock := local.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	network, _ := local.NewNetwork(local.Config{Seed: 3, Now: clock.Now, Link: local.Link{Latency: 20 * time.Millisecond}})
	nonce := uint64(0)
	config := func(remote ...transport.Peer) p2p.Config[uint8] {
		return p2p.Config[uint8]{
			Session:          session.Config[uint8]{Players: 2, InputDelay: 2},
			Remote:           remote,
			SpectatorArchive: 60 * 60 * 10, // the rejoiner replays the match from it
			Net:              rollnet.NetConfig{Now: clock.Now, Tuning: rollnet.NetTuning{Rand: func() uint64 { nonce++; return nonce }}},
		}
	}
	aliceEP, _ := network.Endpoint("alice")
	bobEP, _ := network.Endpoint("bob")
	alice, _ := p2p.New[Pong](config("", "bob"), aliceEP, simulatePong)
	bob, _ := p2p.New[Pong](config("alice", ""), bobEP, simulatePong)
	play := func(ticks int, peers ...*p2p.Session[Pong, uint8]) {
		for tick := range ticks {
			for _, p := range peers {
				player := 0
				if p != alice {
					player = 1
				}
				_ = p.AddLocalInput(player, uint8(tick/20%4))
				_ = p.AdvanceFrame()
			}
			clock.Advance(time.Second / 60)
		}
	}
	play(300, alice, bob)
	token, _ := bob.RejoinToken() // saved where a new process finds it

	_ = bobEP.Close() // the crash
	play(120, alice)

	phoneEP, _ := network.Endpoint("bob-phone")
	cfg := config("alice", "")
	cfg.Rejoin = token
	bob, _ = p2p.New[Pong](cfg, phoneEP, simulatePong)
	play(300, alice, bob)

	for _, e := range alice.Events(nil) {
		if e.Kind == rollnet.EventPlayerRejoined {
			fmt.Printf("player %d rejoined from %s\n", e.Player, e.Peer)
		}
	}
	f := min(alice.ConfirmedFrame(), bob.ConfirmedFrame()) - 1
	a, errA := alice.ChecksumAt(f)
	b, errB := bob.ChecksumAt(f)
	fmt.Println("agree:", errA == nil && errB == nil && a == b)
	// Output:
	// player 1 rejoined from bob-phone
	// agree: true
}
