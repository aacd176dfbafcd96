package steady

import (
	"testing"

	"github.com/rollnet/rollnet/shipcheck"
)

func TestShipCheck(t *testing.T) {
	shipcheck.Run(t, shipcheck.Game[State, uint8]{Name: "steady", Players: 2, Simulate: Simulate})
}
