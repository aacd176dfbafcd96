package replay

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"reflect"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/inputbytes"
	"github.com/rollnet/rollnet/rollback"
)

// Desync forensics. When peers' checksums of a frame differ
// (EventDesyncDetected), the question is where their states parted. A
// session in the debug mode KeepStates keeps the state of its last n
// checksummed frames (the ring holds only Capacity frames, and the
// peer's checksum arrives a round trip later); the game writes the state
// of the event's frame with WriteState, the peers' files are brought
// together (the states are not sent over the session's own protocol: they
// do not fit its packets, and a debugging aid should not add a message
// to it), and DescribeDesync names the fields that differ:
//
//	Pong.Ball.VX: 3 here, 4 at peer b; 2 other fields differ

// chunkDesync is the one chunk of a state file.
const chunkDesync = 'D'

// WriteState writes the state s after frame f to w, for DescribeDesync at
// another peer: the recording format's magic and version, then one chunk
// 'D' (frame uvarint, state size uvarint, the state's bytes) with its
// CRC32-C. S must satisfy rollback.CheckType.
func WriteState[S any](w io.Writer, f rollnet.Frame, s *S) error {
	if err := rollback.CheckType(reflect.TypeFor[S]()); err != nil {
		return fmt.Errorf("%w: state: %w", errConfig, err)
	}
	b := rollback.BytesOf(s)
	var h []byte
	h = binary.AppendUvarint(h, uint64(uint32(f)))
	h = binary.AppendUvarint(h, uint64(len(b)))
	bw := bufio.NewWriter(w)
	_, _ = bw.WriteString(recordMagic)
	_ = bw.WriteByte(recordVersion)
	head := binary.AppendUvarint([]byte{chunkDesync}, uint64(len(h)+len(b)))
	crc := crc32.Update(crc32.Update(crc32.Update(0, castagnoli, head), castagnoli, h), castagnoli, b)
	for _, p := range [][]byte{head, h, b, binary.LittleEndian.AppendUint32(nil, crc)} {
		_, _ = bw.Write(p)
	}
	return bw.Flush()
}

// ReadState reads a state written by WriteState. A file that is not one
// is ErrFormat, of another version ErrVersion, of another
// state size ErrSettings, damaged ErrCorrupt, cut short
// ErrTruncated.
func ReadState[S any](r io.Reader) (rollnet.Frame, *S, error) {
	if err := rollback.CheckType(reflect.TypeFor[S]()); err != nil {
		return 0, nil, fmt.Errorf("%w: state: %w", errConfig, err)
	}
	s := new(S)
	want := len(rollback.BytesOf(s))
	br := bufio.NewReader(r)
	var magic [len(recordMagic) + 1]byte
	if _, err := io.ReadFull(br, magic[:]); err != nil {
		return 0, nil, ErrFormat
	}
	switch {
	case string(magic[:len(recordMagic)]) != recordMagic:
		return 0, nil, ErrFormat
	case magic[len(recordMagic)] != recordVersion:
		return 0, nil, fmt.Errorf("%w: version %d", ErrVersion, magic[len(recordMagic)])
	}
	kind, err := br.ReadByte()
	if err != nil {
		return 0, nil, ErrTruncated
	}
	if kind != chunkDesync {
		return 0, nil, fmt.Errorf("%w: chunk %q is not a state", ErrFormat, kind)
	}
	length, err1 := binary.ReadUvarint(br)
	f, err2 := binary.ReadUvarint(br)
	size, err3 := binary.ReadUvarint(br)
	if err := errors.Join(err1, err2, err3); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, nil, ErrTruncated
		}
		return 0, nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if size != uint64(want) {
		return 0, nil, fmt.Errorf("%w: a %d-byte state, %d here", ErrSettings, size, want)
	}
	h := binary.AppendUvarint(binary.AppendUvarint(nil, f), size)
	if f > 1<<31-1 || length != uint64(len(h))+size {
		return 0, nil, fmt.Errorf("%w: state chunk", ErrCorrupt)
	}
	b := rollback.BytesOf(s)
	var sum [4]byte
	if _, err := io.ReadFull(br, b); err != nil {
		return 0, nil, truncated(err)
	}
	if _, err := io.ReadFull(br, sum[:]); err != nil {
		return 0, nil, truncated(err)
	}
	head := binary.AppendUvarint([]byte{chunkDesync}, length)
	crc := crc32.Update(crc32.Update(crc32.Update(0, castagnoli, head), castagnoli, h), castagnoli, b)
	if binary.LittleEndian.Uint32(sum[:]) != crc {
		return 0, nil, fmt.Errorf("%w: state CRC", ErrCorrupt)
	}
	for _, o := range inputbytes.BoolOffsets(reflect.TypeFor[S](), 0, nil) {
		if b[o] > 1 {
			return 0, nil, fmt.Errorf("%w: a bool byte is %d", ErrCorrupt, b[o])
		}
	}
	return rollnet.Frame(f), s, nil
}

// DescribeDesync names where two states of the same frame parted, for a
// log or a report: "World.Ball.VX: 3 here, 4 at peer b; 2 other fields
// differ", or "states are equal". S must satisfy rollback.CheckType.
func DescribeDesync[S any](here, there *S, peer string) (string, error) {
	fields, total, err := rollback.DiffBytes(reflect.TypeFor[S](), rollback.BytesOf(here), rollback.BytesOf(there), 1)
	if err != nil {
		return "", err
	}
	if total == 0 {
		return "states are equal", nil
	}
	d := fields[0]
	s := fmt.Sprintf("%s: %s here, %s at peer %s", d.Path, d.A, d.B, peer)
	switch total {
	case 1:
	case 2:
		s += "; 1 other field differs"
	default:
		s += fmt.Sprintf("; %d other fields differ", total-1)
	}
	return s, nil
}
