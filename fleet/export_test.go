//go:build !js

package fleet

// View is the /fleet JSON view, for the tests that read it.
type View = fleetView

// View is the placer's view, for the tests.
func (p *Placer) View() View { return p.view() }

// HostView is a host in the view.
type HostView = hostView
