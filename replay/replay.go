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
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/rollback"
)

// ReplayConfig configures a Replayer. The zero value of every field means
// its documented default.
type ReplayerConfig struct {
	// Settings must equal the recording's RecordConfig.Settings, else
	// ErrSettings.
	Settings uint64
	// Players, when not 0, must equal the recording's number of players,
	// else ErrSettings. 0 takes the recording's.
	Players int
	// MaxFields bounds the fields a MismatchError lists; 0 means 8.
	MaxFields int
}

// Replayer plays a recording back: the initial state, then every frame
// with its recorded inputs, checking the state against every recorded
// checksum. It runs as fast as simulate does (Run), or a frame per AdvanceFrame
// for a game that shows it. AdvanceFrame allocates nothing. A Replayer is not
// safe for concurrent use.
//
// Bytes from the file are not trusted: a damaged, forged or cut file is
// an error (ErrCorrupt, ErrTruncated, ...), never a panic, and
// no claim in it makes the replayer allocate more than the sizes it was
// built for.
type Replayer[S any, I comparable] struct {
	r        *bufio.Reader
	simulate func(*S, []I, rollnet.Frame)
	codec    inputbytes.Codec[I]
	state    *S
	players  int
	size     int
	stateN   int
	every    int
	states   bool
	maxField int

	frame   rollnet.Frame // next frame AdvanceFrame simulates
	agreed  rollnet.Frame // newest frame whose checksum matched
	checked int           // checksums that matched
	err     error         // sticky

	blockStart rollnet.Frame
	blockN     int
	blockIn    []byte   // the block's inputs
	sums       []uint32 // the block's checksums
	sum        int      // next of sums to check
	args       []I
	chunk      []byte // a chunk's payload
	head       [1 + binary.MaxVarintLen64]byte
	tail       [4]byte
}

// NewReplayer reads the header of the recording r and returns a replayer
// whose State() is the recorded initial state. The recording must be of
// states of type S and inputs of type I, with cfg's Settings and Players.
func NewReplayer[S any, I comparable](cfg ReplayerConfig, r io.Reader, simulate func(s *S, inputs []I, frame rollnet.Frame)) (*Replayer[S, I], error) {
	if r == nil || simulate == nil {
		return nil, fmt.Errorf("%w: nil reader or simulate", errConfig)
	}
	if cfg.Players < 0 || cfg.Players > maxPlayers || cfg.MaxFields < 0 {
		return nil, fmt.Errorf("%w: Players %d or MaxFields %d out of range", errConfig, cfg.Players, cfg.MaxFields)
	}
	ic, err := inputbytes.New[I]()
	if err != nil {
		return nil, fmt.Errorf("%w: input type: %w", errConfig, err)
	}
	st := reflect.TypeFor[S]()
	if err := rollback.CheckType(st); err != nil {
		return nil, fmt.Errorf("%w: state: %w", errConfig, err)
	}
	p := &Replayer[S, I]{
		r:        bufio.NewReaderSize(r, 4096),
		simulate: simulate,
		codec:    ic,
		state:    new(S),
		size:     ic.Size,
		stateN:   int(st.Size()),
		maxField: cfg.MaxFields,
		agreed:   rollnet.NoFrame,
	}
	if p.maxField == 0 {
		p.maxField = 8
	}
	if err := p.readHeader(cfg); err != nil {
		return nil, err
	}
	stride := p.players * p.size
	p.blockIn = make([]byte, wire.MaxFrames*stride)
	p.sums = make([]uint32, 0, wire.MaxFrames)
	p.args = make([]I, p.players)
	n := binary.MaxVarintLen64 + wire.MaxPacket + 4*wire.MaxFrames
	if p.states {
		n = max(n, binary.MaxVarintLen64+p.stateN)
	}
	p.chunk = make([]byte, n)
	return p, nil
}

// readHeader reads the magic, the version and the header chunk, and sets
// the initial state.
func (p *Replayer[S, I]) readHeader(cfg ReplayerConfig) error {
	var magic [len(recordMagic) + 1]byte
	if n, err := io.ReadFull(p.r, magic[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%w (%d bytes, shorter than a recording's %d-byte start)", ErrFormat, n, len(magic))
		}
		return err
	}
	if string(magic[:len(recordMagic)]) != recordMagic {
		return ErrFormat
	}
	if v := magic[len(recordMagic)]; v != recordVersion {
		return fmt.Errorf("%w: version %d (this release reads %d)", ErrVersion, v, recordVersion)
	}
	kind, length, crc, err := p.readChunkHead()
	if err != nil {
		return truncated(err)
	}
	if kind != chunkHeader {
		return fmt.Errorf("%w: first chunk %q is not the header", ErrCorrupt, kind)
	}
	// The fields first (at most 8+4*10+1 bytes), so that a recording of
	// another state size is named as such before its state is read.
	var fields [8 + 4*binary.MaxVarintLen64 + 1]byte
	fb := fields[:min(length, uint64(len(fields)))]
	if _, err := io.ReadFull(p.r, fb); err != nil {
		return truncated(err)
	}
	if len(fb) < 8 {
		return fmt.Errorf("%w: header of %d bytes", ErrCorrupt, length)
	}
	settings := binary.LittleEndian.Uint64(fb)
	i := 8
	var v [4]uint64
	for k := range v {
		x, n := binary.Uvarint(fb[min(i, len(fb)):])
		if n <= 0 {
			return fmt.Errorf("%w: header", ErrCorrupt)
		}
		v[k] = x
		i += n
	}
	if i >= len(fb) {
		return fmt.Errorf("%w: header", ErrCorrupt)
	}
	flags := fb[i]
	i++
	players, size, stateN, every := v[0], v[1], v[2], v[3]
	switch {
	case players < 1 || players > maxPlayers || size < 1 || every < 1 || every > 1<<20 || flags > 1:
		return fmt.Errorf("%w: header: %d players, %d-byte inputs, checksum every %d frames, flags %#x",
			ErrCorrupt, players, size, every, flags)
	case settings != cfg.Settings:
		return fmt.Errorf("%w: game settings %#x recorded, %#x here", ErrSettings, settings, cfg.Settings)
	case cfg.Players != 0 && players != uint64(cfg.Players):
		return fmt.Errorf("%w: %d players recorded, %d here", ErrSettings, players, cfg.Players)
	case size != uint64(p.size) || stateN != uint64(p.stateN):
		return fmt.Errorf("%w: %d-byte inputs and %d-byte state recorded, %d and %d here",
			ErrSettings, size, stateN, p.size, p.stateN)
	case length != uint64(i)+stateN:
		return fmt.Errorf("%w: header of %d bytes", ErrCorrupt, length)
	}
	p.players, p.every, p.states = int(players), int(every), flags == 1
	// The rest of fb is the state's start; then read the rest of it.
	sb := rollback.BytesOf(p.state)
	k := copy(sb, fb[i:])
	if _, err := io.ReadFull(p.r, sb[k:]); err != nil {
		return truncated(err)
	}
	crc = crc32.Update(crc, castagnoli, fb[:i])
	crc = crc32.Update(crc, castagnoli, sb)
	if err := p.checkCRC(crc); err != nil {
		return err
	}
	for _, o := range inputbytes.BoolOffsets(reflect.TypeFor[S](), 0, nil) {
		if sb[o] > 1 {
			return fmt.Errorf("%w: initial state: a bool byte is %d", ErrCorrupt, sb[o])
		}
	}
	return nil
}

// truncated maps an end of file inside a chunk to ErrTruncated.
func truncated(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return ErrTruncated
	}
	return err
}

// readChunkHead reads a chunk's kind and length, and returns the CRC of
// both. io.EOF before the kind is returned as is.
func (p *Replayer[S, I]) readChunkHead() (kind byte, length uint64, crc uint32, err error) {
	kind, err = p.r.ReadByte()
	if err != nil {
		return 0, 0, 0, err
	}
	length, err = binary.ReadUvarint(p.r)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, 0, 0, ErrTruncated
		}
		return 0, 0, 0, fmt.Errorf("%w: chunk length: %w", ErrCorrupt, err)
	}
	h := binary.AppendUvarint(append(p.head[:0], kind), length)
	return kind, length, crc32.Update(0, castagnoli, h), nil
}

// checkCRC reads a chunk's CRC and compares it with crc.
func (p *Replayer[S, I]) checkCRC(crc uint32) error {
	if _, err := io.ReadFull(p.r, p.tail[:]); err != nil {
		return truncated(err)
	}
	if got := binary.LittleEndian.Uint32(p.tail[:]); got != crc {
		return fmt.Errorf("%w: chunk CRC %08x, computed %08x (after frame %d)", ErrCorrupt, got, crc, p.frame-1)
	}
	return nil
}

// readChunk reads the next chunk into p.chunk. A clean end of file before
// a chunk is ErrTruncated (only the end chunk ends a recording).
func (p *Replayer[S, I]) readChunk() (kind byte, payload []byte, err error) {
	kind, length, crc, err := p.readChunkHead()
	if err != nil {
		return 0, nil, truncated(err)
	}
	switch kind {
	case chunkInputs, chunkEnd:
	case chunkState:
		if !p.states {
			return 0, nil, fmt.Errorf("%w: a state chunk in a recording without states", ErrCorrupt)
		}
	default:
		return 0, nil, fmt.Errorf("%w: chunk kind %q after frame %d", ErrCorrupt, kind, p.frame-1)
	}
	if length > uint64(len(p.chunk)) {
		return 0, nil, fmt.Errorf("%w: chunk %q of %d bytes", ErrCorrupt, kind, length)
	}
	payload = p.chunk[:length]
	if _, err := io.ReadFull(p.r, payload); err != nil {
		return 0, nil, truncated(err)
	}
	if err := p.checkCRC(crc32.Update(crc, castagnoli, payload)); err != nil {
		return 0, nil, err
	}
	return kind, payload, nil
}

// Players returns the number of players recorded.
func (p *Replayer[S, I]) Players() int { return p.players }

// State returns the replayed state: the state after frame Frame()-1. Read
// it; writing it makes the replay differ.
func (p *Replayer[S, I]) State() *S { return p.state }

// Frame returns the frame the next AdvanceFrame simulates.
func (p *Replayer[S, I]) Frame() rollnet.Frame { return p.frame }

// Checked returns how many recorded checksums the replay has matched.
func (p *Replayer[S, I]) Checked() int { return p.checked }

// AdvanceFrame simulates frame Frame() with its recorded inputs and checks the
// state against its recorded checksum, if it has one. At the end of the
// recording it returns io.EOF. A state that differs is a
// *MismatchError; a damaged file ErrCorrupt or
// ErrTruncated. Errors are sticky. AdvanceFrame allocates nothing but
// errors.
func (p *Replayer[S, I]) AdvanceFrame() error {
	if p.err != nil {
		return p.err
	}
	if int(p.frame-p.blockStart) == p.blockN {
		if p.err = p.nextBlock(); p.err != nil {
			return p.err
		}
	}
	stride := p.players * p.size
	in := p.blockIn[int(p.frame-p.blockStart)*stride:]
	for i := range p.args {
		if err := p.codec.Decode(in[i*p.size:], &p.args[i]); err != nil {
			p.err = fmt.Errorf("%w: frame %d player %d: %w", ErrCorrupt, p.frame, i, err)
			return p.err
		}
	}
	f := p.frame
	p.simulate(p.state, p.args, f)
	p.frame++
	if (int(f)+1)%p.every == 0 {
		want := p.sums[p.sum]
		p.sum++
		if got := rollback.Checksum(rollback.BytesOf(p.state)); got != want {
			p.err = p.mismatch(f, want, got)
			return p.err
		}
		p.agreed = f
		p.checked++
	}
	return nil
}

// Run steps to the end of the recording and returns nil if every checksum
// matched, else AdvanceFrame's error.
func (p *Replayer[S, I]) Run() error {
	for {
		if err := p.AdvanceFrame(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// nextBlock reads chunks up to the next inputs chunk, which must start at
// Frame(), or the end chunk (io.EOF).
func (p *Replayer[S, I]) nextBlock() error {
	for {
		kind, b, err := p.readChunk()
		if err != nil {
			return err
		}
		switch kind {
		case chunkState:
			if _, _, err := p.parseState(b); err != nil {
				return err
			}
		case chunkEnd:
			n, k := binary.Uvarint(b)
			if k != len(b) || n != uint64(p.frame) {
				return fmt.Errorf("%w: end chunk after frame %d", ErrCorrupt, p.frame-1)
			}
			if _, err := p.r.ReadByte(); err != io.EOF {
				return fmt.Errorf("%w: bytes after the end", ErrCorrupt)
			}
			return io.EOF
		case chunkInputs:
			return p.parseInputs(b)
		}
	}
}

// parseInputs decodes an inputs chunk into the block.
func (p *Replayer[S, I]) parseInputs(b []byte) error {
	l, k := binary.Uvarint(b)
	if k <= 0 || l > uint64(len(b)-k) {
		return fmt.Errorf("%w: inputs chunk after frame %d", ErrCorrupt, p.frame-1)
	}
	m := wire.Input{Size: p.size}
	if _, err := wire.ParseInput(b[k:k+int(l)], &m, p.blockIn, nil); err != nil {
		return fmt.Errorf("%w: inputs after frame %d: %w", ErrCorrupt, p.frame-1, err)
	}
	if m.Start != int32(p.frame) || m.Frames < 1 || m.Players != ^uint64(0)>>(64-p.players) {
		return fmt.Errorf("%w: inputs for frames %d+%d of players %#x after frame %d",
			ErrCorrupt, m.Start, m.Frames, m.Players, p.frame-1)
	}
	rest := b[k+int(l):]
	n := checkpoints(p.frame, m.Frames, p.every)
	if len(rest) != 4*n {
		return fmt.Errorf("%w: %d checksum bytes for %d checksums", ErrCorrupt, len(rest), n)
	}
	p.sums = p.sums[:n]
	for i := range p.sums {
		p.sums[i] = binary.LittleEndian.Uint32(rest[4*i:])
	}
	p.sum = 0
	p.blockStart, p.blockN = p.frame, m.Frames
	return nil
}

// parseState checks a state chunk and returns its frame and bytes.
func (p *Replayer[S, I]) parseState(b []byte) (rollnet.Frame, []byte, error) {
	f, k := binary.Uvarint(b)
	if k <= 0 || len(b)-k != p.stateN || f >= uint64(p.frame) || (f+1)%uint64(p.every) != 0 {
		return 0, nil, fmt.Errorf("%w: state chunk after frame %d", ErrCorrupt, p.frame-1)
	}
	return rollnet.Frame(f), b[k:], nil
}

// mismatch builds the error for frame f. With states recorded, it reads
// on to the recorded state of f (it follows f's block) and diffs it with
// the replayed one.
func (p *Replayer[S, I]) mismatch(f rollnet.Frame, want, got uint32) error {
	e := &MismatchError{Frame: f, LastAgreed: p.agreed, Recorded: want, Replayed: got}
	for p.states {
		kind, b, err := p.readChunk()
		if err != nil || kind != chunkState {
			break
		}
		g, rec, err := p.parseState(b)
		if err != nil {
			break
		}
		if g == f {
			e.Fields, e.Differ, _ = rollback.DiffBytes(reflect.TypeFor[S](), rec, rollback.BytesOf(p.state), p.maxField)
			break
		}
	}
	return e
}
