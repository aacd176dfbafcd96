package rollnet

// Frame numbers simulation steps. Frame 0 is the first one simulated.
type Frame int32

// NoFrame stands for "no frame": nothing confirmed, acknowledged or
// checksummed yet.
const NoFrame Frame = -1

// Peer identifies a remote endpoint of a transport (package transport's
// Peer is this type). The zero value is no peer.
type Peer string
