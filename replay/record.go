package replay

// The recording format, version 1. All integers little-endian; uvarints
// are encoding/binary's.
//
//	magic    "rollnet\x00"  (8 bytes)
//	version  u8 = 1
//	chunks, each: kind u8, length uvarint, payload, CRC32-C u32 of kind,
//	         length and payload. The first chunk is the header, the last
//	         the end; a file without the end was cut short.
//
// The chunks:
//
//	'H' header  Settings u64 (the game's settings hash, as in
//	            NetConfig.Settings), players uvarint, input size uvarint,
//	            state size uvarint, checksum interval N uvarint, flags u8
//	            (bit 0: states follow their checksums), then the initial
//	            state's bytes (the state before frame 0).
//	'I' inputs  a codec Input message (seq 0, ack -1, every player, the
//	            frames [Start, Start+Frames), XORed frame to frame and
//	            run-length coded), its length as uvarint before it, then
//	            the CRC32-C of the state after every frame f of the block
//	            with (f+1) % N == 0, u32 each, in order. Blocks are
//	            consecutive from frame 0 and hold at most 64 frames.
//	'S' state   frame uvarint, then the state's bytes after that frame;
//	            only with flag bit 0, one per checksum, after the block
//	            that holds its frame (for desync forensics: the replayer
//	            names the field that differs).
//	'E' end     the number of frames recorded, uvarint.
//
// States and inputs are the bytes of the platform's memory layout (see
// the package doc's Types), the same on every little-endian platform.

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"reflect"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/inputbytes"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/rollback"
)

// recordMagic starts every recording; recordVersion follows it.
const (
	recordMagic   = "rollnet\x00"
	recordVersion = 1
)

// The chunk kinds.
const (
	chunkHeader = 'H'
	chunkInputs = 'I'
	chunkState  = 'S'
	chunkEnd    = 'E'
)

// recordBlock is the most frames one inputs chunk holds (at most
// wire.MaxFrames). A second of play at 60 frames a second is one block.
const recordBlock = 64

// recordMaxStride bounds players × input size, so that one frame's
// inputs always fit a codec Input message.
const recordMaxStride = 1024

// castagnoli is the CRC32-C table (the package's own, hardware-accelerated).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// RecordConfig configures a Recorder. The zero value of every field but
// Players means its documented default.
type RecorderConfig struct {
	// Players is the number of players, 1..64 (session.MaxPlayers).
	Players int
	// Settings is the game's hash of anything a replay must agree on (its
	// version, rules, map), as in NetConfig.Settings. A Replayer given
	// other Settings refuses the file with ErrSettings.
	Settings uint64
	// ChecksumEvery is the checksum interval: the checksum of the state
	// after frame f is recorded when (f+1) % ChecksumEvery == 0. 0 means 1,
	// every frame, so a replay names the exact first frame that differs.
	ChecksumEvery int
	// States, a debug mode, records the state's bytes along with every
	// checksum, so that a replay that differs can name the fields that do
	// (see MismatchError). It makes the file about one state per
	// checksum larger.
	States bool
}

// Recorder writes a match to an io.Writer: the settings, the initial
// state and every frame's confirmed inputs, with the state's checksum
// every ChecksumEvery frames. Create it with NewRecorder, call Record once
// per frame in order, and Close at the end. Record allocates nothing
// (when the writer does not); the writer sees a write per block of 64
// frames. A Recorder is not safe for concurrent use.
//
// P2P sessions and spectators record themselves once given a recorder
// (SetRecorder); an authoritative host, or any loop of its own, calls
// Record with each frame's confirmed inputs and the state after the frame.
type Recorder[S any, I comparable] struct {
	w       *bufio.Writer
	players int
	size    int // input size
	every   int
	frame   rollnet.Frame // next frame Record takes
	start   rollnet.Frame // first frame of the open block
	err     error         // sticky write error
	closed  bool

	inputs []byte   // the open block's inputs, frame-major, then player
	sums   []uint32 // the open block's checksums
	states []byte   // with States: the open block's checkpoint states
	stateN int      // state size
	out    []byte   // a chunk being built
	args   []I      // a frame's inputs, for sessions recording themselves
	// A chunk's kind and length, and its CRC: here rather than on the
	// stack, since the writer's Write may keep what it is given.
	head [1 + binary.MaxVarintLen64]byte
	tail [4]byte
	num  [binary.MaxVarintLen64]byte
}

// NewRecorder writes the header of a recording of a match starting from
// initial (the state before frame 0) to w, and returns the recorder. S
// and I must satisfy rollback.CheckType; players × input size may not
// exceed 1024 bytes, nor an input 32 (wire.MaxInputSize). Errors wrap
// rollnet.ErrConfig, or are w's.
func NewRecorder[S any, I comparable](cfg RecorderConfig, w io.Writer, initial *S) (*Recorder[S, I], error) {
	if w == nil || initial == nil {
		return nil, fmt.Errorf("%w: nil writer or initial state", errConfig)
	}
	if cfg.Players < 1 || cfg.Players > maxPlayers {
		return nil, fmt.Errorf("%w: Players %d not in [1, %d]", errConfig, cfg.Players, maxPlayers)
	}
	every := cfg.ChecksumEvery
	if every == 0 {
		every = 1
	}
	if every < 1 || every > 1<<20 {
		return nil, fmt.Errorf("%w: ChecksumEvery %d not in [1, 2^20]", errConfig, cfg.ChecksumEvery)
	}
	ic, err := inputbytes.New[I]()
	if err != nil {
		return nil, fmt.Errorf("%w: input type: %w", errConfig, err)
	}
	if err := rollback.CheckType(reflect.TypeFor[S]()); err != nil {
		return nil, fmt.Errorf("%w: state: %w", errConfig, err)
	}
	if ic.Size > wire.MaxInputSize || ic.Size*cfg.Players > recordMaxStride {
		return nil, fmt.Errorf("%w: %d players × %d-byte inputs (at most %d bytes an input, %d a frame)",
			errConfig, cfg.Players, ic.Size, wire.MaxInputSize, recordMaxStride)
	}
	stateN := len(rollback.BytesOf(initial))
	r := &Recorder[S, I]{
		w:       bufio.NewWriterSize(w, 4096),
		players: cfg.Players,
		size:    ic.Size,
		every:   every,
		inputs:  make([]byte, 0, recordBlock*cfg.Players*ic.Size),
		sums:    make([]uint32, 0, recordBlock),
		stateN:  stateN,
		args:    make([]I, cfg.Players),
		out:     make([]byte, 0, wire.MaxPacket+8+4*recordBlock+16),
	}
	if cfg.States {
		r.states = make([]byte, 0, min(recordBlock, recordBlock/every+1)*stateN)
	}
	var flags byte
	if cfg.States {
		flags = 1
	}
	h := make([]byte, 0, 8+5*4+1)
	h = binary.LittleEndian.AppendUint64(h, cfg.Settings)
	h = binary.AppendUvarint(h, uint64(cfg.Players))
	h = binary.AppendUvarint(h, uint64(ic.Size))
	h = binary.AppendUvarint(h, uint64(stateN))
	h = binary.AppendUvarint(h, uint64(every))
	h = append(h, flags)
	_, _ = r.w.WriteString(recordMagic)
	_ = r.w.WriteByte(recordVersion)
	r.writeChunk(chunkHeader, h, rollback.BytesOf(initial))
	if err := r.w.Flush(); err != nil {
		return nil, err
	}
	return r, nil
}

// Frame returns the frame the next Record is for (0 at first).
func (r *Recorder[S, I]) Frame() rollnet.Frame { return r.frame }

// Record records frame Frame(): every player's confirmed input for it
// (len(inputs) == Players) and the state after it. It allocates nothing
// unless the writer does. A wrong number of inputs is ErrArgument; after
// Close, rollnet.ErrClosed; a write error is returned by this and every
// later call.
func (r *Recorder[S, I]) Record(inputs []I, state *S) error {
	if r.closed {
		return errClosed
	}
	if r.err != nil {
		return r.err
	}
	if len(inputs) != r.players || state == nil {
		return fmt.Errorf("%w: %d inputs for %d players, or a nil state", ErrArgument, len(inputs), r.players)
	}
	for i := range inputs {
		r.inputs = r.codecAppend(r.inputs, &inputs[i])
	}
	if (int(r.frame)+1)%r.every == 0 {
		b := rollback.BytesOf(state)
		r.sums = append(r.sums, rollback.Checksum(b))
		if r.states != nil {
			r.states = append(r.states, b...)
		}
	}
	r.frame++
	if int(r.frame-r.start) == recordBlock {
		r.writeBlock()
	}
	return r.err
}

// codecAppend appends an input's bytes.
func (r *Recorder[S, I]) codecAppend(dst []byte, in *I) []byte {
	return append(dst, rollback.BytesOf(in)...)
}

// Flush writes the frames recorded so far (an incomplete block becomes a
// block of its own) and flushes the writer, so that a recording cut short
// later still replays up to here.
func (r *Recorder[S, I]) Flush() error {
	if r.closed {
		return errClosed
	}
	r.writeBlock()
	if r.err == nil {
		r.err = r.w.Flush()
	}
	return r.err
}

// Close writes the last frames and the end of the recording, and flushes.
// It does not close the writer. Later calls return rollnet.ErrClosed.
func (r *Recorder[S, I]) Close() error {
	if r.closed {
		return errClosed
	}
	r.writeBlock()
	r.writeChunk(chunkEnd, binary.AppendUvarint(r.num[:0], uint64(r.frame)), nil)
	if r.err == nil {
		r.err = r.w.Flush()
	}
	r.closed = true
	return r.err
}

// writeBlock writes the open block, if it holds frames, as inputs chunks
// (halved until each fits a codec message) and its states.
func (r *Recorder[S, I]) writeBlock() {
	n := int(r.frame - r.start)
	if n == 0 || r.err != nil {
		return
	}
	r.writeInputs(r.start, n, r.inputs, r.sums)
	if r.states != nil {
		si := 0
		for f := r.start; f < r.frame; f++ {
			if (int(f)+1)%r.every != 0 {
				continue
			}
			r.writeChunk(chunkState, binary.AppendUvarint(r.num[:0], uint64(f)), r.states[si*r.stateN:(si+1)*r.stateN])
			si++
		}
		r.states = r.states[:0]
	}
	r.start = r.frame
	r.inputs = r.inputs[:0]
	r.sums = r.sums[:0]
}

// writeInputs writes frames [start, start+n) with their inputs in and the
// checksums sums of their checkpoints.
func (r *Recorder[S, I]) writeInputs(start rollnet.Frame, n int, in []byte, sums []uint32) {
	msg := wire.Input{Ack: -1, Start: int32(start), Frames: n, Players: ^uint64(0) >> (64 - r.players), Size: r.size, Inputs: in}
	// The message's length goes before it, as a uvarint of at most two
	// bytes (a message is at most wire.MaxPacket): encode after two
	// bytes of room, then close the gap if one byte was enough, rather
	// than run the encoder twice (Len, then Append).
	out := msg.Append(r.out[:2])
	if len(out) == 2 { // more than a codec message holds: halve
		h := n / 2
		k := checkpoints(start, h, r.every)
		stride := r.players * r.size
		r.writeInputs(start, h, in[:h*stride], sums[:k])
		r.writeInputs(start+rollnet.Frame(h), n-h, in[h*stride:], sums[k:])
		return
	}
	if l := len(out) - 2; l < 0x80 {
		out[1] = byte(l)
		out = out[1:]
	} else {
		out[0], out[1] = byte(l)|0x80, byte(l>>7)
	}
	for _, s := range sums {
		out = binary.LittleEndian.AppendUint32(out, s)
	}
	r.writeChunk(chunkInputs, out, nil)
}

// checkpoints counts the frames f in [start, start+n) whose checksum is
// recorded: (f+1) % every == 0.
func checkpoints(start rollnet.Frame, n, every int) int {
	return (int(start)+n)/every - int(start)/every
}

// writeChunk writes one chunk whose payload is a then b.
func (r *Recorder[S, I]) writeChunk(kind byte, a, b []byte) {
	if r.err != nil {
		return
	}
	h := binary.AppendUvarint(append(r.head[:0], kind), uint64(len(a)+len(b)))
	crc := crc32.Update(0, castagnoli, h)
	crc = crc32.Update(crc, castagnoli, a)
	crc = crc32.Update(crc, castagnoli, b)
	binary.LittleEndian.PutUint32(r.tail[:], crc)
	for _, p := range [...][]byte{h, a, b, r.tail[:]} {
		if _, err := r.w.Write(p); err != nil {
			r.err = err
			return
		}
	}
}

// maxPlayers is the most players a recording holds (session.MaxPlayers).
const maxPlayers = 64
