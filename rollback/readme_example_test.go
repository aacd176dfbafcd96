package rollback_test

import (
	"fmt"

	"github.com/rollnet/rollnet/rollback"
)

// The README's state ring snippet is the body of ringREADME (checked by
// TestREADMESnippets in package netplay).

type World struct {
	X, Y  int32
	Score [2]uint8
	_     [2]byte // explicit padding is fine; compiler-inserted padding is refused
}

func ringREADME() error {
	ring, err := rollback.New[World](16) // power-of-two capacity, one allocation
	if err != nil {
		return err
	}
	ring.Live().X = 10
	ring.Commit()              // snapshot the live state
	ring.Live().X = 99         // a misprediction...
	ring.Rollback(0)           // ...undone: live is the newest commit again
	fmt.Println(ring.Live().X) // 10
	return nil
}

func Example_readme() {
	if err := ringREADME(); err != nil {
		fmt.Println(err)
	}
	// Output: 10
}
