package impair

import "errors"

// ErrSpec is returned by ParseLink for a description it cannot read.
var ErrSpec = errors.New("impair: bad link description")
