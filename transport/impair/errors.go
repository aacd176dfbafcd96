package impair

import "errors"

// ErrConfig is returned by New for a Config field out of range; the
// wrapping error names the field.
var ErrConfig = errors.New("impair: invalid config")

// ErrSpec is returned by ParseLink for a description it cannot read.
var ErrSpec = errors.New("impair: bad link description")
