package turn

import "errors"

var (
	// ErrConfig is wrapped by every error New and Listen return for a bad
	// Config.
	ErrConfig = errors.New("turn: invalid config")

	// ErrCredentials is wrapped by CheckCredentials' errors: a username
	// that is not "EXPIRY:ID", a password that is not the HMAC of the
	// username, or credentials past their expiry.
	ErrCredentials = errors.New("turn: credentials refused")

	// ErrExpired is wrapped (with ErrCredentials) when credentials are
	// well formed and signed but past their expiry.
	ErrExpired = errors.New("turn: credentials expired")

	// ErrQuota is returned to pion (and answered 508) for an allocation
	// over MaxAllocationsPerUser or MaxAllocations.
	ErrQuota = errors.New("turn: allocation quota reached")

	// ErrTCPRelay refuses an RFC 6062 TCP allocation: the relay relays
	// UDP only (WebRTC needs nothing else), whichever transport the client
	// reaches it over.
	ErrTCPRelay = errors.New("turn: TCP relay allocations are not offered")
)
