package authority_test

import (
	"fmt"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/transport/local"
)

// A pong-like world: two paddles steered by their players' inputs, and a
// ball that drifts.
type court struct {
	Left, Right int32
	Ball, Frame int32
}

func play(c *court, in []int8, f rollnet.Frame) {
	c.Left += int32(in[0])
	c.Right += int32(in[1])
	c.Ball += 3
	c.Frame = int32(f)
}

// lan is an in-memory network with 30 ms each way, on a fake clock, and
// the link settings that read that clock.
func lan() (*local.Clock, *local.Network, rollnet.NetConfig) {
	clock := local.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	network, _ := local.NewNetwork(local.Config{Now: clock.Now, Link: local.Link{Latency: 30 * time.Millisecond}})
	seed := uint64(0)
	return clock, network, rollnet.NetConfig{Now: clock.Now, Tuning: rollnet.NetTuning{Rand: func() uint64 { seed++; return seed * 0x9e3779b97f4a7c15 }}}
}

// A dedicated host and two clients over an in-memory network with 30 ms
// each way, on a fake clock. Each client steers its own paddle; after two
// seconds both clients predict the present, and the newest host state each
// holds is the host's own.
func Example() {
	clock, network, net := lan()

	hostEnd, _ := network.Endpoint("host")
	host, err := authority.NewHost[court, int8](authority.HostConfig[int8]{Players: 2, Net: net}, hostEnd, play)
	if err != nil {
		fmt.Println(err)
		return
	}
	var clients []*authority.Client[court, int8]
	for _, name := range []string{"left", "right"} {
		end, _ := network.Endpoint(name)
		c, err := authority.NewClient[court, int8](authority.ClientConfig{Host: "host", Players: 2, Net: net}, end, play)
		if err != nil {
			fmt.Println(err)
			return
		}
		clients = append(clients, c)
	}

	const tick = time.Second / 60
	for range 120 {
		clock.Advance(tick)
		_ = host.AdvanceFrame()
		for i, c := range clients {
			if c.Synchronized() {
				_ = c.AddLocalInput(0, int8(1+i)) // left moves 1 a frame, right 2
			}
			_, _ = c.Update(tick) // the fixed step, at the host's advised rate
		}
	}
	for _, c := range clients {
		s, f := c.HostState()
		sum, _ := host.ChecksumAt(f)
		st := c.Stats()
		fmt.Printf("slot %d: synchronized %v, host state is the host's: %v, predictions mostly right: %v\n",
			st.First, c.Synchronized(), sum == rollback.Checksum(rollback.BytesOf(s)), st.Matches > 10*st.Mismatches)
	}
	// Output:
	// slot 0: synchronized true, host state is the host's: true, predictions mostly right: true
	// slot 1: synchronized true, host state is the host's: true, predictions mostly right: true
}

// A client process that ends and starts again keeps its slot: the first
// process keeps its token (Client.RejoinToken), the new one starts its client
// with it (ClientConfig.Rejoin) within the host's grace window.
func ExampleClientConfig_resume() {
	clock, network, net := lan()
	hostEnd, _ := network.Endpoint("host")
	host, _ := authority.NewHost[court, int8](authority.HostConfig[int8]{Players: 2, Net: net}, hostEnd, play)
	run := func(c *authority.Client[court, int8], d time.Duration) {
		for range d / (time.Second / 60) {
			clock.Advance(time.Second / 60)
			_ = host.AdvanceFrame()
			if c.Synchronized() {
				_ = c.AddLocalInput(0, 1)
			}
			_ = c.AdvanceFrame()
		}
	}
	// The first process: it joins and keeps its token.
	end, _ := network.Endpoint("process-1")
	first, _ := authority.NewClient[court, int8](authority.ClientConfig{Host: "host", Players: 2, Net: net}, end, play)
	run(first, time.Second)
	token, ok := first.RejoinToken()
	fmt.Printf("first process: slot %d, token held %v\n", first.Stats().First, ok)

	// It ends without a word; a new process starts with the token.
	end2, _ := network.Endpoint("process-2")
	again, _ := authority.NewClient[court, int8](authority.ClientConfig{Host: "host", Players: 2, Net: net, Rejoin: token}, end2, play)
	run(again, time.Second)
	st := again.Stats()
	fmt.Printf("new process: slot %d, resumed %v, synchronized %v\n", st.First, st.Rejoined, st.Synchronized)
	// Output:
	// first process: slot 0, token held true
	// new process: slot 0, resumed true, synchronized true
}
