package world

import (
	"testing"

	"github.com/rollnet/rollnet/shipcheck"
)

// The tanks' check before they ship (from the ebiten module:
// go run github.com/rollnet/rollnet/cmd/rollnet-check ./examples/tanks/world):
// a sync test of four tanks with random buttons and its recording replayed
// on other architectures.
func TestShipCheck(t *testing.T) {
	shipcheck.Run(t, shipcheck.Game[World, Buttons]{Name: "tanks", Players: MaxTanks, Initial: NewWorld(MaxTanks), Simulate: Simulate})
}
