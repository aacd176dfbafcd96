package netplay_test

import (
	"fmt"
	"time"

	"github.com/rollnet/rollnet/netplay"
)

// An authoritative client: a dedicated host and one client in a room on a
// signaling server on loopback. The host announces itself; the client
// finds it, plays 120 frames, and draws what it controls from State and
// the rest from Playout. The client's netcode is the body of connect.
func ExampleConnect() {
	signal, stop := startSignal()
	defer stop()
	host, err := netplay.Host[World, Buttons](netplay.Config{
		Signal: signal, Room: "arena", Name: "host", Players: 2,
	}, simulate)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer host.Close()
	done := make(chan error, 1)
	go func() { done <- connect(signal) }()
	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			fmt.Println("client done:", err)
			fmt.Println("host named the client:", host.Name(0))
			return
		case <-tick.C:
			if _, err := host.AdvanceFrame(0); err != nil {
				fmt.Println(err)
				return
			}
		}
	}
	// Output:
	// client done: <nil>
	// host named the client: carol
}

// connect is an authoritative client's whole netcode.
func connect(signal string) error {
	m, err := netplay.Connect[World, Buttons](netplay.Config{
		Signal: signal, Room: "arena", Name: "carol", Players: 2,
	}, simulate)
	if err != nil {
		return err
	}
	defer m.Close()
	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	for range tick.C {
		st, err := m.AdvanceFrame(1)
		if err != nil {
			return err
		}
		me := m.State()                     // what this player controls: predicted
		a, b, alpha, ok := m.Playout()      // the others: paced host states
		_, _, _, _, _ = me, a, b, alpha, ok // draw them
		if st.Phase == netplay.Running && st.Frame >= 120 {
			return nil
		}
	}
	return nil
}
