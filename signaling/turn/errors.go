package turn

import (
	"errors"
	"fmt"

	"github.com/rollnet/rollnet"
)

var (
	// errConfig is wrapped by every error Listen returns for a bad
	// Config: errors.Is(err, rollnet.ErrConfig) holds.
	errConfig = fmt.Errorf("%w: turn", rollnet.ErrConfig)

	// errCredentials is wrapped by CheckCredentials' errors: a username
	// that is not "EXPIRY:ID", a password that is not the HMAC of the
	// username, or credentials past their expiry.
	errCredentials = errors.New("turn: credentials refused")

	// errExpired is wrapped (with errCredentials) when credentials are
	// well formed and signed but past their expiry.
	errExpired = errors.New("turn: credentials expired")

	// errQuota is returned to pion (and answered 508) for an allocation
	// over MaxAllocationsPerUser or MaxAllocations.
	errQuota = errors.New("turn: allocation quota reached")

	// errTCPRelay refuses an RFC 6062 TCP allocation: the relay relays
	// UDP only (WebRTC needs nothing else), whichever transport the client
	// reaches it over.
	errTCPRelay = errors.New("turn: TCP relay allocations are not offered")
)
