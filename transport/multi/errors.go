package multi

import "errors"

// ErrNoParts is returned by New without a transport.
var ErrNoParts = errors.New("multi: no transports")
