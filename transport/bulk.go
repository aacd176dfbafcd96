package transport

// BulkSender is implemented by a Transport with a send path for bulk
// transfers (a session feeding a peer that catches up: a burst of
// datagrams a tick, none made stale by the next). SendBulk is Send, but it
// may queue deeper than Send does, and it reports whether it took the
// datagram, so that the sender stops its burst at the first one dropped
// and sends it again later instead of leaving holes.
//
// A Transport without it gets Send; a caller counts a nil error as taken.
type BulkSender interface {
	SendBulk(to Peer, b []byte) (taken bool, err error)
}
