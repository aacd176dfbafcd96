package netplay_test

import (
	"fmt"
	"slices"
	"time"

	"github.com/rollnet/rollnet/netplay"
)

// A two-player P2P game loop: two players (here two goroutines; in a game,
// two processes) join the same room through a signaling server on
// loopback, are seated, and play 120 frames over WebRTC. The netcode is
// the body of play.
func ExampleJoin() {
	signal, stop := startSignal()
	defer stop()
	type result struct {
		name string
		sum  uint32
		err  error
	}
	results := make(chan result, 2)
	for _, name := range []string{"alice", "bob"} {
		go func() {
			sum, err := play(signal, name)
			results <- result{name, sum, err}
		}()
	}
	a, b := <-results, <-results
	if a.err != nil || b.err != nil {
		fmt.Println(a.err, b.err)
		return
	}
	names := []string{a.name, b.name}
	slices.Sort(names)
	fmt.Println(names, "agree on frame 60:", a.sum == b.sum)
	// Output: [alice bob] agree on frame 60: true
}

// play is one player's whole netcode: join, one call per tick, close.
func play(signal, name string) (uint32, error) {
	m, err := netplay.Join[World, Buttons](netplay.Config{
		Signal: signal, Room: "example", Name: name, Players: 2,
	}, simulate)
	if err != nil {
		return 0, err
	}
	defer m.Close()
	var sum uint32
	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	for range tick.C {
		st, err := m.AdvanceFrame(Buttons(st0(m.Frame())))
		if err != nil {
			return 0, err
		}
		if s, err := m.ChecksumAt(60); err == nil && sum == 0 {
			sum = s // both players' checksum of frame 60, once confirmed
		}
		if st.Frame >= 120 && sum != 0 {
			return sum, nil
		}
	}
	return 0, nil
}

// st0 is the examples' input: a player that sways.
func st0[F ~int32](f F) int8 { return int8(f/20%3) - 1 }
