package local

import "errors"

var (
	// ErrConfig is returned by NewNetwork for a Config field out of range;
	// the wrapping error names the field.
	ErrConfig = errors.New("local: invalid config")

	// ErrLink is returned by SetLink, SetDefaultLink and NewNetwork for a
	// Link field out of range; the wrapping error names the field.
	ErrLink = errors.New("local: invalid link")

	// ErrName is returned by Endpoint for an empty name.
	ErrName = errors.New("local: empty endpoint name")

	// ErrNameTaken is returned by Endpoint for the name of an endpoint that
	// is open on the network. A closed endpoint's name may be opened again.
	ErrNameTaken = errors.New("local: endpoint name taken")
)
