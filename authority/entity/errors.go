package entity

import "errors"

// ErrMalformed reports a message that does not parse: cut short, a
// record kind or an index out of range, a checksum that does not match.
// The receiver counts it and drops the whole message.
var ErrMalformed = errors.New("entity: malformed message")
