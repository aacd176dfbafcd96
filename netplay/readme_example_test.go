package netplay_test

import (
	"fmt"
	"time"

	"github.com/rollnet/rollnet/netplay"
)

// The README's netplay snippets are the bodies of playFriday and
// clientLoop below (TestREADMESnippets checks it); these examples run them
// between real peers on loopback.

func readButtons() Buttons { return 1 }

func draw(*World, netplay.Status) {}

// ExampleJoin_readme runs the README's first snippet for two players.
func ExampleJoin_readme() {
	signal, stop := startSignal()
	defer stop()
	errs := make(chan error, 2)
	for _, name := range []string{"alice", "bob"} {
		go func() { errs <- playFriday(signal, name) }()
	}
	fmt.Println(<-errs, <-errs)
	// Output: <nil> <nil>
}

func playFriday(signal, name string) error {
	m, err := netplay.Join[World, Buttons](netplay.Config{
		Signal: signal, Room: "friday", Name: name, Players: 2,
	}, simulate)
	if err != nil {
		return err
	}
	defer m.Close()
	for range time.Tick(time.Second / 60) { // Config.FrameRate, 60 by default
		st, err := m.AdvanceFrame(readButtons())
		if err != nil {
			return err // fatal: the wrong room or settings, a timeout, a refused rejoin
		}
		draw(m.State(), st) // st.String(): "connecting: 1 of 2 players", "running, waiting for bob"...
		if st.Phase == netplay.Ended || st.Frame >= 120 {
			return nil
		}
	}
	return nil
}

// ExampleConnect runs the README's authoritative client against a
// dedicated host, which names its client from the client's hello.
func ExampleConnect() {
	signal, stop := startSignal()
	defer stop()
	h, err := netplay.Host[World, Buttons](netplay.Config{Signal: signal, Room: "arena", Players: 2}, simulate)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer h.Close()
	done := make(chan error, 1)
	go func() { done <- clientLoop(signal) }()
	for tick := time.Tick(time.Second / 60); ; {
		select {
		case err := <-done:
			fmt.Println(err, h.Name(0))
			return
		case <-tick:
			if _, err := h.AdvanceFrame(0); err != nil {
				fmt.Println(err)
				return
			}
		}
	}
	// Output: <nil> carol
}

func drawBlend(me, a, b *World, alpha float64) {}

func clientLoop(signal string) error {
	m, err := netplay.Connect[World, Buttons](netplay.Config{
		Signal: signal, Room: "arena", Name: "carol", Players: 2,
	}, simulate)
	if err != nil {
		return err
	}
	defer m.Close()
	for range time.Tick(time.Second / 60) {
		st, err := m.AdvanceFrame(readButtons())
		if err != nil {
			return err // a P2P room (ErrP2PRoom), other settings (ErrSettings), ...
		}
		a, b, alpha, _ := m.Playout()     // the others: two host states and the blend
		drawBlend(m.State(), a, b, alpha) // this player: its predicted present
		if st.Phase == netplay.Ended || st.Frame >= 120 {
			return nil
		}
	}
	return nil
}
