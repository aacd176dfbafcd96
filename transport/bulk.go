package transport

// BulkSender is implemented by a Transport with a send path for bulk
// transfers (a session feeding a peer that catches up: a burst of
// datagrams a tick, none made stale by the next). SendBulk is Send, but it
// may queue deeper than Send does, and it reports whether it took the
// datagram, so that the sender stops its burst at the first one dropped
// and sends it again later instead of leaving holes.
//
// A Transport without it gets Send; a caller counts a nil error as taken.
//
// What SendBulk took is never dropped for its age, so on a link slower
// than the sender it may wait as long as the transport's bulk queue
// takes to drain (64 datagrams over QUIC, 64 KiB over WebRTC: seconds). A
// sender whose datagrams a newer one makes stale bounds its own queue
// from what its peer acknowledges: authority/entity's host holds back
// while more is in flight than the link carries in a round trip and a
// quarter of a second.
type BulkSender interface {
	SendBulk(to Peer, b []byte) (taken bool, err error)
}
