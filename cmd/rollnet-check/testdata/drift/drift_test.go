package drift

import (
	"testing"

	"github.com/rollnet/rollnet/shipcheck"
)

func TestShipCheck(t *testing.T) {
	shipcheck.Run(t, shipcheck.Game[State, uint8]{Name: "drift", Players: 2, Simulate: Simulate, Frames: 60})
}
