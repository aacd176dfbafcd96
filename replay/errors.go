package replay

import (
	"errors"
	"fmt"
	"io"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/rollback"
)

// Sentinel errors of recordings (Recorder, Replayer) and state files.
// Every error they return is, or wraps, one of these, or is the writer's
// or reader's own; test with errors.Is.
var (
	// errConfig reports a RecorderConfig or ReplayerConfig that cannot work,
	// or a state or input type a recording cannot hold.
	errConfig = fmt.Errorf("%w: replay", rollnet.ErrConfig)

	// ErrArgument reports an argument out of its documented range (a
	// wrong number of inputs, a nil state, a recorder that is not new).
	ErrArgument = errors.New("replay: invalid argument")

	// ErrFormat reports a file that is not a rollnet recording: its
	// first bytes are not the magic.
	ErrFormat = errors.New("replay: not a rollnet recording")

	// ErrVersion reports a recording of a format version this
	// release does not read.
	ErrVersion = errors.New("replay: unknown recording version")

	// ErrSettings reports a recording of another game or of other
	// settings: the game's Settings, the number of players, or the size
	// of an input or of the state differ from the replayer's.
	ErrSettings = errors.New("replay: recording of other settings")

	// ErrCorrupt reports a recording whose bytes are damaged or
	// forged: a chunk whose CRC does not match, an unknown chunk, a chunk
	// too long, frames out of order, inputs that do not decode.
	ErrCorrupt = errors.New("replay: corrupt recording")

	// ErrTruncated reports a recording that ends before its end
	// chunk (the match was cut short, or the file was). Every frame before
	// the cut was replayed and checked. It wraps io.ErrUnexpectedEOF.
	ErrTruncated = fmt.Errorf("replay: recording cut short: %w", io.ErrUnexpectedEOF)

	// errClosed reports a Record, Flush or Close after Close.
	errClosed = fmt.Errorf("%w: replay: recorder closed", rollnet.ErrClosed)

	// ErrMismatch reports a replayed state whose checksum differs
	// from the one recorded: the simulation is not deterministic (across
	// machines, builds or versions). The error is a *MismatchError.
	ErrMismatch = errors.New("replay: state differs from the recording")
)

// MismatchError is the error a Replayer returns at the first
// recorded checksum its own state does not match.
// errors.Is(err, ErrMismatch) holds for it.
type MismatchError struct {
	// Frame is the frame after which the states differ.
	Frame rollnet.Frame
	// LastAgreed is the newest frame whose recorded checksum matched,
	// NoFrame if none did: the states parted in (LastAgreed, Frame].
	LastAgreed rollnet.Frame
	// Recorded and Replayed are the two checksums of the state after
	// Frame.
	Recorded, Replayed uint32
	// Fields are the first fields that differ (the recording's value in
	// A, the replay's in B), and Differ how many do, when the recording
	// holds states (RecordConfig.States); else empty and 0.
	Fields []rollback.FieldDiff
	Differ int
}

// Error names the frame, both checksums and, when known, the first field
// that differs.
func (e *MismatchError) Error() string {
	s := fmt.Sprintf("%v: frame %d: recorded checksum %08x, replayed %08x (last agreed: frame %d)",
		ErrMismatch, e.Frame, e.Recorded, e.Replayed, e.LastAgreed)
	if len(e.Fields) > 0 {
		f := e.Fields[0]
		s += fmt.Sprintf("; %s: %s recorded, %s replayed", f.Path, f.A, f.B)
		if e.Differ > 1 {
			s += fmt.Sprintf("; %d other fields differ", e.Differ-1)
		}
	}
	return s
}

// Unwrap returns ErrMismatch.
func (e *MismatchError) Unwrap() error { return ErrMismatch }
