package local_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// Two endpoints over a 40 ms link on a fake clock: nothing arrives until the
// clock reaches the delivery time.
func Example() {
	clock := local.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	net, err := local.NewNetwork(local.Config{
		Seed: 1,
		Now:  clock.Now,
		Link: local.Link{Latency: 40 * time.Millisecond},
	})
	if err != nil {
		panic(err)
	}
	alice, _ := net.Endpoint("alice")
	bob, _ := net.Endpoint("bob")

	_ = alice.Send("bob", []byte("hello"))
	buf := make([]byte, transport.MaxDatagram)

	clock.Advance(39 * time.Millisecond)
	_, _, err = bob.Receive(buf)
	fmt.Println(errors.Is(err, transport.ErrNoPacket))

	clock.Advance(time.Millisecond)
	n, from, _ := bob.Receive(buf)
	fmt.Printf("%s from %s\n", buf[:n], from)
	// Output:
	// true
	// hello from alice
}

// A lossy, jittery link that drops datagrams in bursts, and a blackout.
func ExampleNetwork_SetLink() {
	clock := local.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	net, _ := local.NewNetwork(local.Config{Seed: 7, Now: clock.Now})
	a, _ := net.Endpoint("a")
	b, _ := net.Endpoint("b")
	err := net.SetLink("a", "b", local.Link{
		Latency: 100 * time.Millisecond,
		Jitter:  15 * time.Millisecond,
		Loss:    0.02,
		Burst:   local.Burst{Enter: 0.01, Leave: 0.25}, // bad spells of 4 datagrams on average
	})
	if err != nil {
		panic(err)
	}
	buf := make([]byte, transport.MaxDatagram)
	for range 1000 {
		_ = a.Send("b", []byte("input"))
		clock.Advance(16 * time.Millisecond)
		for {
			if _, _, err := b.Receive(buf); err != nil {
				break
			}
		}
	}
	net.Partition("a", "b")
	_ = a.Send("b", []byte("lost in the blackout"))
	net.Heal("a", "b")

	s := net.LinkStats("a", "b")
	fmt.Println(s.Sent, s.Sent == s.Delivered+s.Lost+s.Partitioned+s.InFlight)
	fmt.Println(s.Partitioned) // the datagrams in flight when the blackout began, and the one sent in it
	// Output:
	// 1001 true
	// 7
}
