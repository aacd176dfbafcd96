package local

import "time"

// NextArrival reports when the earliest datagram queued for e is due, for
// tests that advance a fake clock from event to event; false when nothing
// is queued or e is closed.
func NextArrival(e Endpoint) (time.Time, bool) { return e.(*endpoint).nextArrival() }
