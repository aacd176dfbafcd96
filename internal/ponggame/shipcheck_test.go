package ponggame

import (
	"testing"

	"github.com/rollnet/rollnet/shipcheck"
)

// Pong's check before it ships (go run ./cmd/rollnet-check ./internal/ponggame):
// a sync test with random inputs and its recording replayed on other
// architectures.
func TestShipCheck(t *testing.T) {
	shipcheck.Run(t, shipcheck.Game[State, Input]{Name: "pong", Players: 2, Initial: NewState(7), Simulate: Simulate})
}
