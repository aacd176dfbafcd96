package connecttoken

import "github.com/rollnet/rollnet/internal/tokenwire"

var (
	// ErrMalformed: the bytes are not a token of this version, or a field
	// is out of range (a room over 32 bytes, an expiry too far ahead). A
	// host refuses such a token with it too.
	ErrMalformed = tokenwire.ErrMalformed
	// ErrInvalid: a bad argument to Mint (the wrapping error names it).
	ErrInvalid = tokenwire.ErrInvalid
)
