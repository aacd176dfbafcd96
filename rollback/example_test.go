package rollback_test

import (
	"fmt"
	"reflect"

	"github.com/rollnet/rollnet/rollback"
)

// Game is a tiny game state: fixed-width fields only, no padding.
type Game struct {
	Frame int32
	X, Y  int16
}

func Example() {
	ring, err := rollback.New[Game](8)
	if err != nil {
		panic(err)
	}
	g := ring.Live()
	for range 3 { // simulate three frames, committing each
		g.Frame++
		g.X += 2
		ring.Commit()
	}
	fmt.Println("live:", *g, "depth:", ring.Depth())

	// A late input says frame 2 was wrong: go back to it and re-simulate.
	if err := ring.Rollback(1); err != nil {
		panic(err)
	}
	fmt.Println("rolled back:", *g, "depth:", ring.Depth())
	g.Frame++
	g.Y += 5 // the corrected frame 3
	ring.Commit()
	prev, _ := ring.Peek(1)
	fmt.Println("live:", *g, "previous:", *prev)
	fmt.Printf("checksum: %08x (on a little-endian platform)\n", ring.Checksum())
	// Output:
	// live: {3 6 0} depth: 3
	// rolled back: {2 4 0} depth: 2
	// live: {3 4 5} previous: {2 4 0}
	// checksum: 7166fdbb (on a little-endian platform)
}

func ExampleCheckType() {
	type Player struct {
		X, Y int32
		Name string
	}
	type World struct {
		Frame   uint32
		Players [2]Player
	}
	_, err := rollback.New[World](4)
	fmt.Println(err)
	// Output:
	// rollback: World.Players[].Name: string is not allowed
}

func ExampleNewBytes() {
	ring, err := rollback.NewBytes(4, 3)
	if err != nil {
		panic(err)
	}
	copy(ring.Live(), "abc")
	ring.Commit()
	copy(ring.Live(), "xyz")
	_ = ring.Rollback(0) // undo the live edit
	fmt.Printf("%s %d\n", ring.Live(), ring.Depth())
	// Output:
	// abc 1
}

// Two peers' states of the same frame differ: DiffBytes names the fields.
func ExampleDiffBytes() {
	type Ball struct{ X, VX int32 }
	type World struct {
		Frame int32
		Ball  Ball
		Score [2]uint8
		_     [2]byte
	}
	here := World{Frame: 600, Ball: Ball{X: 120, VX: 3}, Score: [2]uint8{4, 2}}
	peer := here
	peer.Ball.VX, peer.Ball.X, peer.Score[1] = 4, 121, 3

	fields, total, err := rollback.DiffBytes(reflect.TypeFor[World](), rollback.BytesOf(&here), rollback.BytesOf(&peer), 1)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %s here, %s at the peer; %d other fields differ\n",
		fields[0].Path, fields[0].A, fields[0].B, total-1)
	// Output:
	// World.Ball.X: 120 here, 121 at the peer; 2 other fields differ
}
