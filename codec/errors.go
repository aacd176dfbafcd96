package codec

import (
	"errors"
	"fmt"
	"io"
)

// Sentinel errors. Every error returned by this package is errors.Is-able to
// exactly one of these (possibly wrapped with more detail).
var (
	// ErrShort means the buffer ends before the message does. It wraps
	// io.ErrUnexpectedEOF, so errors.Is(err, io.ErrUnexpectedEOF) also holds.
	ErrShort = fmt.Errorf("codec: short buffer: %w", io.ErrUnexpectedEOF)
	// ErrMalformed means the bytes are not a canonical encoding, or a coded
	// block would decode to more bytes than the caller asked for.
	ErrMalformed = errors.New("codec: malformed message")
)
