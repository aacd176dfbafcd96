package connecttoken

import "errors"

var (
	// ErrMalformed: the bytes are not a token of this version, or a field
	// is out of range (a room over 32 bytes, an expiry too far ahead).
	ErrMalformed = errors.New("connecttoken: malformed token")
	// ErrForged: the MAC does not match under the host's secret.
	ErrForged = errors.New("connecttoken: token not signed by this backend")
	// ErrWrongAddress: the token was minted for another host address.
	ErrWrongAddress = errors.New("connecttoken: token minted for another host")
	// ErrWrongRoom: the token names a room this host does not serve.
	ErrWrongRoom = errors.New("connecttoken: token minted for another room")
	// ErrExpired: the token's expiry has passed.
	ErrExpired = errors.New("connecttoken: token expired")
	// ErrReplayed: the token was redeemed already (by a connection that
	// showed its key).
	ErrReplayed = errors.New("connecttoken: token already used")
	// ErrWrongKey: the client key shown does not belong to the token.
	ErrWrongKey = errors.New("connecttoken: wrong client key")
	// ErrFull: the Verifier remembers Config.MaxRemembered unexpired tokens.
	ErrFull = errors.New("connecttoken: too many tokens in use")
	// ErrInvalid: a bad argument to Mint or NewVerifier (the wrapping
	// error names it).
	ErrInvalid = errors.New("connecttoken: invalid argument")
)
