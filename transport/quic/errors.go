package quic

import "errors"

var (
	// ErrPinMismatch is returned by Dial when the host's certificate is not
	// the one Config.PinSHA256 names. The error does not show the
	// certificate's hash: a hash to copy would let whoever answered in the
	// host's place be pinned.
	ErrPinMismatch = errors.New("quic: host certificate is not the pinned one (compare the pin with the SHA-256 the host logged when it started)")

	// ErrUntrusted is returned by Dial when no SHA-256 is pinned
	// (Config.PinSHA256 zero) and the host's certificate does not verify
	// against Config.RootCAs (or the system's roots): a self-signed one, as
	// a host makes by default, needs its SHA-256 pinned.
	ErrUntrusted = errors.New("quic: host certificate not trusted: no SHA-256 pinned, and no known authority signed it (pin the SHA-256 the host logged when it started)")

	// ErrRefused is returned by Dial when the host did not admit this
	// client: after the handshake (a connect token shown with another key,
	// or used meanwhile by a connection that showed its key; a full host),
	// the wrapping error carries the host's reason; at the handshake (a
	// connect token used, expired, for another host or room, or forged),
	// it says so and names the grant's claims.
	ErrRefused = errors.New("quic: host refused the connection")

	// ErrHello is returned by Dial, and is the reason a pending connection
	// is closed on the host, when the hello exchange that follows the
	// handshake is malformed, truncated or late.
	ErrHello = errors.New("quic: bad hello")

	// ErrTooManyMigrations is returned by Migrate once Config.Tuning.MaxMigrations
	// sockets are held.
	ErrTooManyMigrations = errors.New("quic: too many migrations")

	// ErrNotClient is returned by Migrate on a host's Transport.
	ErrNotClient = errors.New("quic: not a client transport")
)
