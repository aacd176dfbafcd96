// Package netplayhatch reaches under a netplay.Match, for this module's
// own binaries and tests (the demo's recording, desync injection and
// report, fleetlocal's figures): the session a Match runs and the WebRTC
// transport it joined. A game uses what netplay exports instead.
//
// It imports no mode: netplay registers the hatch, and a caller names
// the type it expects.
package netplayhatch

// Under is set by netplay: what runs under m (a *netplay.Match), nil for
// what is not built yet or belongs to another mode: its P2P session,
// spectator, authoritative host, authoritative client and WebRTC
// transport. An array, not a slice: the demo reaches under its match
// every frame, without allocating.
var Under func(m any) [5]any

// Of returns what runs under the netplay.Match m as a T (*p2p.Session[S,
// I], *p2p.Spectator[S, I], *authority.Host[S, I], *authority.Client[S,
// I] or webrtc.Transport), or T's zero value when m runs none (another
// mode, not yet connected).
func Of[T any](m any) T {
	var zero T
	if Under == nil {
		return zero
	}
	for _, x := range Under(m) {
		if t, ok := x.(T); ok {
			return t
		}
	}
	return zero
}
