package rollebiten_test

import (
	"fmt"
	"time"

	rollebiten "github.com/rollnet/rollnet/ebiten"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport/local"
)

// Two games on an in-memory network, each Update one tick, as
// ebiten.RunGame calls them at TPS = the match's frame rate (a real game
// passes Config to rollebiten.Run instead, with a Signal URL).
func ExampleNew() {
	l := newLAN(local.Link{Latency: 20 * time.Millisecond})
	a, err := l.game("a", netplay.ModeP2P, 2, sway(), "b")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Close()
	b, err := l.game("b", netplay.ModeP2P, 2, sway(), "a")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()
	for a.Status().Frame < 120 {
		if err := a.Update(); err != nil {
			fmt.Println(err)
			return
		}
		if err := b.Update(); err != nil {
			fmt.Println(err)
			return
		}
		l.clock.Advance(time.Second / time.Duration(a.TPS()))
	}
	sa, errA := a.Match().ChecksumAt(100)
	sb, errB := b.Match().ChecksumAt(100)
	fmt.Println(a.Status().Phase, a.TPS(), "ticks a second; frame 100 agrees:", errA == nil && errB == nil && sa == sb)
	// Output: running 60 ticks a second; frame 100 agrees: true
}

// Lerp draws what others control between two host states.
func ExampleLerp() {
	fmt.Println(rollebiten.Lerp(int32(10), 20, 0.25))
	// Output: 12.5
}
