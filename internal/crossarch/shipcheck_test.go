package crossarch

import (
	"testing"

	"github.com/rollnet/rollnet/shipcheck"
)

// The fixed-point swarm's check (go run ./cmd/rollnet-check ./internal/crossarch).
func TestShipCheckSwarm(t *testing.T) {
	shipcheck.Run(t, shipcheck.Game[Swarm, uint8]{Name: "swarm", Players: 2, Initial: NewSwarm(), Simulate: SimulateSwarm})
}
