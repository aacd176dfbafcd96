//go:build !js

package fleet

import (
	"time"

	"github.com/nats-io/nats.go"
)

// View is the /fleet JSON view, for the tests that read it.
type View = fleetView

// View is the placer's view, for the tests.
func (p *Placer) View() View { return p.view() }

// HostView is a host in the view.
type HostView = hostView

// NewPlacerAt is NewPlacer on the clock now, for the tests.
func NewPlacerAt(nc *nats.Conn, cfg PlacerConfig, now func() time.Time) (*Placer, error) {
	return newPlacer(nc, cfg, now)
}
