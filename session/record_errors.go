package session

import (
	"errors"
	"fmt"
	"io"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/rollback"
)

// Sentinel errors of recordings (Recorder, Replayer). Every error they
// return is, or wraps, one of these, ErrConfig or ErrArgument, or is the
// writer's or reader's own; test with errors.Is.
var (
	// ErrRecordFormat reports a file that is not a rollnet recording: its
	// first bytes are not the magic.
	ErrRecordFormat = errors.New("session: not a rollnet recording")

	// ErrRecordVersion reports a recording of a format version this
	// release does not read.
	ErrRecordVersion = errors.New("session: unknown recording version")

	// ErrRecordSettings reports a recording of another game or of other
	// settings: the game's Settings, the number of players, or the size
	// of an input or of the state differ from the replayer's.
	ErrRecordSettings = errors.New("session: recording of other settings")

	// ErrRecordCorrupt reports a recording whose bytes are damaged or
	// forged: a chunk whose CRC does not match, an unknown chunk, a chunk
	// too long, frames out of order, inputs that do not decode.
	ErrRecordCorrupt = errors.New("session: corrupt recording")

	// ErrRecordTruncated reports a recording that ends before its end
	// chunk (the match was cut short, or the file was). Every frame before
	// the cut was replayed and checked. It wraps io.ErrUnexpectedEOF.
	ErrRecordTruncated = fmt.Errorf("session: recording cut short: %w", io.ErrUnexpectedEOF)

	// ErrRecordClosed reports a Record, Flush or Close after Close.
	ErrRecordClosed = errors.New("session: recorder closed")

	// ErrReplayMismatch reports a replayed state whose checksum differs
	// from the one recorded: the simulation is not deterministic (across
	// machines, builds or versions). The error is a *ReplayMismatchError.
	ErrReplayMismatch = errors.New("session: replay differs from the recording")
)

// ReplayMismatchError is the error a Replayer returns at the first
// recorded checksum its own state does not match.
// errors.Is(err, ErrReplayMismatch) holds for it.
type ReplayMismatchError struct {
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
func (e *ReplayMismatchError) Error() string {
	s := fmt.Sprintf("%v: frame %d: recorded checksum %08x, replayed %08x (last agreed: frame %d)",
		ErrReplayMismatch, e.Frame, e.Recorded, e.Replayed, e.LastAgreed)
	if len(e.Fields) > 0 {
		f := e.Fields[0]
		s += fmt.Sprintf("; %s: %s recorded, %s replayed", f.Path, f.A, f.B)
		if e.Differ > 1 {
			s += fmt.Sprintf("; %d other fields differ", e.Differ-1)
		}
	}
	return s
}

// Unwrap returns ErrReplayMismatch.
func (e *ReplayMismatchError) Unwrap() error { return ErrReplayMismatch }
