package dedicated

import "errors"

// ErrUsage reports a bad command line, a -game that names none of the
// games handed to Main or Run among them.
var ErrUsage = errors.New("rollnet-host: usage")
