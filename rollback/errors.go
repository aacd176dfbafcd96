package rollback

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/rollnet/rollnet"
)

// Sentinel errors. Every error returned by this package is, or wraps, one of
// these or rollnet.ErrConfig (a capacity or state size out of range); test
// with errors.Is.
var (
	// ErrDepth reports a Peek, Rollback or ChecksumAt index outside
	// [0, Depth()).
	ErrDepth = errors.New("rollback: depth out of range")

	// ErrStateType reports a state (or input) type that is not pointer-free,
	// gap-free and made of fixed-width fields. The error CheckType returns
	// wraps it and names the offending field.
	ErrStateType = errors.New("rollback: state type not allowed")
)

var (
	// errCapacity reports a ring capacity that is not a power of two in
	// [1, maxCapacity].
	errCapacity = fmt.Errorf("%w: rollback: capacity must be a power of two in [1, 2^20]", rollnet.ErrConfig)

	// errSize reports a state size outside [1, maxSize], a ring whose total
	// storage (size × (capacity+1)) exceeds maxTotal, or two states to
	// compare whose sizes are not their type's.
	errSize = fmt.Errorf("%w: rollback: state size out of range", rollnet.ErrConfig)
)

// typeError is the error CheckType returns. It names the offending field by
// its path from the checked type, e.g. "World.Players[].Name", and
// errors.Is(err, ErrStateType) holds for it.
type typeError struct {
	// Type is the checked type (the root of Path).
	Type reflect.Type
	// Path is the dotted path to the offending field; "[]" stands for an
	// array element. For a problem with the whole type it is the type name.
	Path string
	// Reason says what is wrong, e.g. "string is not allowed".
	Reason string
}

// Error returns "rollback: <path>: <reason>".
func (e *typeError) Error() string { return "rollback: " + e.Path + ": " + e.Reason }

// Unwrap returns ErrStateType.
func (e *typeError) Unwrap() error { return ErrStateType }
