package fixed

import "errors"

// Errors of Parse, wrapped with the input.
var (
	// ErrSyntax is returned for text that is not a decimal number.
	ErrSyntax = errors.New("fixed: invalid syntax")
	// ErrRange is returned for a number outside [Min, Max] once rounded.
	ErrRange = errors.New("fixed: out of range")
)
