package wire

import (
	"errors"

	"github.com/rollnet/rollnet/codec"
)

// Sentinel errors. Every error returned by this package is errors.Is-able to
// exactly one of these (possibly wrapped with more detail). ErrShort and
// ErrMalformed are codec's, whose input coding the messages carry, so a
// caller tests either package's name and gets the same answer.
var (
	// ErrShort means the buffer ends before the message does. It wraps
	// io.ErrUnexpectedEOF, so errors.Is(err, io.ErrUnexpectedEOF) also holds.
	ErrShort = codec.ErrShort
	// ErrMalformed means the bytes are not a canonical encoding of a message,
	// or the fields of a message to encode disagree with each other.
	ErrMalformed = codec.ErrMalformed
	// ErrVersion means the message carries a wire version this package does
	// not speak; the peer runs an incompatible release.
	ErrVersion = errors.New("wire: unknown wire version")
	// ErrType means the message type is unknown, or is not the one the parse
	// function decodes.
	ErrType = errors.New("wire: wrong or unknown message type")
	// ErrTooLarge means an encoded message would exceed MaxPacket bytes.
	ErrTooLarge = errors.New("wire: message larger than MaxPacket")
	// ErrLimit means a message claims more frames, players or bytes than
	// the limits (MaxFrames, MaxPlayers, MaxInputSize) or the caller's
	// buffers allow. It is reported before any copy.
	ErrLimit = errors.New("wire: message exceeds a limit")
)
