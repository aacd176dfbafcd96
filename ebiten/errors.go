package rollebiten

import "errors"

// ErrConfig is returned by New and Run for a Config they cannot use.
var ErrConfig = errors.New("rollebiten: bad config")
