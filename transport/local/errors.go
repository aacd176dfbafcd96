package local

import "errors"

// ErrNameTaken is returned by Endpoint for the name of an endpoint that is
// open on the network. A closed endpoint's name may be opened again.
var ErrNameTaken = errors.New("local: endpoint name taken")
