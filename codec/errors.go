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
	// ErrMalformed means the bytes are not a canonical encoding of a message,
	// or the fields of a message to encode disagree with each other.
	ErrMalformed = errors.New("codec: malformed message")
	// ErrVersion means the message carries a wire version this package does
	// not speak; the peer runs an incompatible release.
	ErrVersion = errors.New("codec: unknown wire version")
	// ErrType means the message type is unknown, or is not the one the parse
	// function decodes.
	ErrType = errors.New("codec: wrong or unknown message type")
	// ErrTooLarge means an encoded message would exceed MaxPacket bytes.
	ErrTooLarge = errors.New("codec: message larger than MaxPacket")
	// ErrLimit means a message claims more frames, players or bytes than
	// the limits (MaxFrames, MaxPlayers, MaxInputSize) or the caller's
	// buffers allow. It is reported before any copy.
	ErrLimit = errors.New("codec: message exceeds a limit")
)
