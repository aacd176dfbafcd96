package udp

import "errors"

var (
	// ErrNoVerifier is returned by Listen without Config.TokenSecret: a host
	// admits only clients with a connect token.
	ErrNoVerifier = errors.New("udp: a host needs Config.TokenSecret (the connect tokens' secret)")

	// ErrHandshakeTimeout is returned by Dial when the host did not
	// complete the handshake within Config.HandshakeTimeout: it is not
	// there, or it refused the connect token (expired, used, forged, for
	// another host or room), which it answers with silence so that a
	// forged packet gets nothing back.
	ErrHandshakeTimeout = errors.New("udp: no answer from the host (unreachable, or it refused the connect token)")

	// ErrDenied is returned by Dial when the host proved it holds the
	// token's key and refused the client: it is full, or the client's
	// address holds its share of the host's slots.
	ErrDenied = errors.New("udp: host denied the connection")

	// ErrVersion is returned by Dial when the host speaks another version
	// of this package's protocol.
	ErrVersion = errors.New("udp: host speaks another protocol version")

	// ErrTimeout is the reason a peer is gone when nothing authentic came
	// from it for Config.Timeout.
	ErrTimeout = errors.New("udp: peer timed out")

	// ErrEvicted is the reason a pending client (admitted, not yet heard
	// under its keys) was dropped to make room for a newer one.
	ErrEvicted = errors.New("udp: pending client evicted for a newer one")

	// ErrInvalid is returned by Listen and Dial for a bad Config or
	// argument; the wrapping error names it.
	ErrInvalid = errors.New("udp: invalid argument")
)
