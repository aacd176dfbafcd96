//go:build !js

package main

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/rollnet/rollnet/fleet/fleetlocal"
)

var fleetFlag = flag.Bool("fleet", true, "after the transports, place 100 matches of two bots on a local fleet (embedded NATS, 2 instances, 3 hosts) and time request to first state")

// FleetFigures is the local fleet's placement figure.
type FleetFigures struct {
	Matches, Bots   int
	Hosts, Signals  int
	FirstStateP50Ms float64 `json:"first_state_p50_ms"`
	FirstStateP99Ms float64 `json:"first_state_p99_ms"`
	Refused         int
	Took            string
}

// measureFleet times, for 100 matches of two bots (8 at once, each bot
// through another instance), a bot's request for a match to its first
// host state: placement, QUIC dial with the connect token, the
// authoritative handshake and the first state.
func measureFleet(rep *Report, end time.Time) {
	if left := time.Until(end); left < time.Minute {
		rep.FleetIncomplete = fmt.Sprintf("not measured: %v left of the bound", left.Round(time.Second))
		fmt.Printf("fleet: %s\n", rep.FleetIncomplete)
		return
	}
	began := time.Now()
	f, err := fleetlocal.Start(fleetlocal.Options{Hosts: 3, Signals: 2, Capacity: 8, Linger: 100 * time.Millisecond})
	if err != nil {
		rep.FleetIncomplete = err.Error()
		fmt.Printf("fleet: incomplete: %v\n", err)
		return
	}
	defer f.Close()
	ctx, cancel := context.WithDeadline(context.Background(), end)
	defer cancel()
	const matches, concurrent = 100, 8
	var mu sync.Mutex
	var firsts []time.Duration
	refused := 0
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range concurrent {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				var pair sync.WaitGroup
				for b := range 2 {
					pair.Add(1)
					go func() {
						defer pair.Done()
						for range 20 { // a refusal (every host full) is asked again
							o := fleetlocal.Play(ctx, f.Signals[b], fmt.Sprintf("bench%d", i), "1", 10, 10*time.Second)
							mu.Lock()
							if o.First > 0 {
								firsts = append(firsts, o.First)
							} else {
								refused++
							}
							mu.Unlock()
							if o.Refused == nil {
								return
							}
							time.Sleep(50 * time.Millisecond)
						}
					}()
				}
				pair.Wait()
			}
		}()
	}
	for i := range matches {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if len(firsts) == 0 {
		rep.FleetIncomplete = "no bot reached its first state"
		fmt.Printf("fleet: incomplete: %s\n", rep.FleetIncomplete)
		return
	}
	slices.Sort(firsts)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	ff := FleetFigures{Matches: matches, Bots: len(firsts), Hosts: 3, Signals: 2,
		FirstStateP50Ms: ms(firsts[len(firsts)/2]), FirstStateP99Ms: ms(firsts[min(len(firsts)*99/100, len(firsts)-1)]),
		Refused: refused, Took: time.Since(began).Round(time.Millisecond).String()}
	rep.Fleet = ff
	fmt.Printf("fleet: %d matches of two bots on 3 hosts through 2 instances: request to first state p50 %.1f ms, p99 %.1f ms (%d bots, %d refusals asked again), in %s\n",
		ff.Matches, ff.FirstStateP50Ms, ff.FirstStateP99Ms, ff.Bots, ff.Refused, ff.Took)
}
