package authority_test

import (
	"fmt"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority"
)

// A range: a target crossing at 4 units a frame, and one player's hits.
type rangeWorld struct {
	TargetX, Shots, Hits int32
}

// aim is a shot at an X, or none (0).
type aim int32

// shoot judges a shot against the target where its player saw it (its
// sight: two host states and a blend), or at the present without one.
func shoot(w *rangeWorld, in []aim, _ rollnet.Frame, seen *authority.Sights[rangeWorld]) {
	if at := int32(in[0]); at != 0 {
		x := w.TargetX
		if sg, ok := seen.Of(0); ok {
			x = sg.Lerp(sg.From.TargetX, sg.To.TargetX)
		}
		w.Shots++
		if at-x >= -2 && at-x <= 2 {
			w.Hits++
		}
	}
	w.TargetX += 4
}

// Lag compensation: a client 30 ms each way from its host draws the
// target in the past and shoots where it sees it, every tenth tick; the
// host judges each shot where the client saw the target, and confirms
// every hit (the target moves 40 units between what the client drew and
// the host's present: judged there, every shot would miss).
func ExampleNewHostLagComp() {
	clock, network, net := lan()
	hostEnd, _ := network.Endpoint("host")
	host, _ := authority.NewHostLagComp(authority.HostConfig[aim]{Players: 1, Net: net}, hostEnd, shoot)
	host.State().TargetX = 100
	end, _ := network.Endpoint("shooter")
	client, _ := authority.NewClientLagComp(authority.ClientConfig{Host: "host", Players: 1, Net: net}, end, shoot)

	const tick = time.Second / 60
	fired := 0
	for k := range 600 {
		clock.Advance(tick)
		_ = host.AdvanceFrame()
		var in aim
		if sg, ok := client.Sight(); ok && k%10 == 0 && k < 540 { // what the client draws
			in = aim(sg.Lerp(sg.From.TargetX, sg.To.TargetX))
			fired++
		}
		if client.Synchronized() {
			_ = client.AddLocalInput(0, in)
		}
		_, _ = client.Update(tick) // stamps the inputs with what it drew
	}
	w := host.State()
	fmt.Printf("fired %d, the host judged %d, confirmed %d\n", fired, w.Shots, w.Hits)
	// Output:
	// fired 52, the host judged 52, confirmed 52
}
