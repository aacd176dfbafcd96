package torture

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rollnet/rollnet/codec"
	"github.com/rollnet/rollnet/internal/wire"
)

// T2: the codec under hostile bytes.
//
// Every fuzz corpus entry (the kept ones under codec/testdata/fuzz, and this
// machine's fuzz cache when it has one), then a seeded stream of packets,
// go through every decoder: valid messages of every type with random fields,
// the same mutated (bit flips, byte edits, insertions, deletions, truncations,
// splices of two packets, a forged version-and-type byte) and plain random
// bytes. Every decoder must return without panicking; whatever parses must
// re-encode to exactly the bytes it came from; every valid message must parse
// back to the value that was encoded; every strict prefix of a valid message
// must be an error wrapping io.ErrUnexpectedEOF.
//
// Default: 15,000 generated packets, each mutated 4 ways; raise with
// -torture.scale.

const t2Packets = 15000

// t2Decoder holds the caller-owned storage ParseInput decodes into.
type t2Decoder struct {
	inputs []byte
	status []wire.PeerStatus
}

func newT2Decoder() *t2Decoder {
	return &t2Decoder{
		inputs: make([]byte, wire.MaxFrames*wire.MaxPlayers*wire.MaxInputSize),
		status: make([]wire.PeerStatus, wire.MaxPlayers),
	}
}

// t2Parsers are every decoder of the package, each returning the
// re-encoding of what it parsed. size is the session's input size, for Input.
var t2Parsers = []struct {
	name  string
	parse func(d *t2Decoder, b []byte, size int) ([]byte, error)
}{
	{"Header", func(_ *t2Decoder, b []byte, _ int) ([]byte, error) {
		t, seq, n, err := wire.ParseHeader(b)
		if err != nil {
			return nil, err
		}
		if n != wire.HeaderLen {
			return nil, fmt.Errorf("header length %d", n)
		}
		// The header alone re-encodes as a keep-alive's bytes with t swapped in.
		h := (&wire.KeepAlive{Seq: seq}).Append(nil)
		h[0] = wire.Version<<4 | byte(t)
		return append(h, b[n:]...), nil
	}},
	{"Inputs", func(_ *t2Decoder, b []byte, _ int) ([]byte, error) {
		base, mask, block, err := codec.ParseInputs(b)
		if err != nil {
			return nil, err
		}
		return codec.AppendInputs(nil, base, mask, block), nil
	}},
	{"SyncRequest", func(_ *t2Decoder, b []byte, _ int) ([]byte, error) {
		m, n, err := wire.ParseSyncRequest(b)
		return t2Out(m.Append(nil), n, b, err)
	}},
	{"SyncReply", func(_ *t2Decoder, b []byte, _ int) ([]byte, error) {
		m, n, err := wire.ParseSyncReply(b)
		return t2Out(m.Append(nil), n, b, err)
	}},
	{"Input", func(d *t2Decoder, b []byte, size int) ([]byte, error) {
		m := wire.Input{Size: size}
		n, err := wire.ParseInput(b, &m, d.inputs, d.status)
		if err != nil {
			return nil, err
		}
		if err := m.Check(); err != nil {
			return nil, fmt.Errorf("parsed Input fails Check: %w", err)
		}
		return t2Out(m.Append(nil), n, b, nil)
	}},
	{"InputAck", func(_ *t2Decoder, b []byte, _ int) ([]byte, error) {
		m, n, err := wire.ParseInputAck(b)
		return t2Out(m.Append(nil), n, b, err)
	}},
	{"QualityReport", func(_ *t2Decoder, b []byte, _ int) ([]byte, error) {
		m, n, err := wire.ParseQualityReport(b)
		return t2Out(m.Append(nil), n, b, err)
	}},
	{"QualityReply", func(_ *t2Decoder, b []byte, _ int) ([]byte, error) {
		m, n, err := wire.ParseQualityReply(b)
		return t2Out(m.Append(nil), n, b, err)
	}},
	{"KeepAlive", func(_ *t2Decoder, b []byte, _ int) ([]byte, error) {
		m, n, err := wire.ParseKeepAlive(b)
		return t2Out(m.Append(nil), n, b, err)
	}},
	{"Checksum", func(_ *t2Decoder, b []byte, _ int) ([]byte, error) {
		m, n, err := wire.ParseChecksum(b)
		return t2Out(m.Append(nil), n, b, err)
	}},
	{"Disconnect", func(_ *t2Decoder, b []byte, _ int) ([]byte, error) {
		m, n, err := wire.ParseDisconnect(b)
		return t2Out(m.Append(nil), n, b, err)
	}},
}

func t2Out(out []byte, n int, b []byte, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	if n != len(b) {
		return nil, fmt.Errorf("consumed %d of %d bytes", n, len(b))
	}
	return out, nil
}

// t2Sentinels are the errors a decoder may return; anything else is a bug.
var t2Sentinels = []error{codec.ErrShort, codec.ErrMalformed, wire.ErrVersion, wire.ErrType,
	wire.ErrTooLarge, wire.ErrLimit}

// t2Feed runs b through every decoder and checks the properties. It returns
// how many decoders accepted it.
func t2Feed(t *testing.T, d *t2Decoder, b []byte, size int, what string) int {
	t.Helper()
	accepted := 0
	for _, p := range t2Parsers {
		out, err := p.parse(d, b, size)
		if err != nil {
			known := false
			for _, s := range t2Sentinels {
				known = known || errors.Is(err, s)
			}
			if !known {
				t.Fatalf("%s: %s(% x): error %v is none of the package's sentinels", what, p.name, b, err)
			}
			continue
		}
		accepted++
		if !bytes.Equal(out, b) {
			t.Fatalf("%s: %s(% x) re-encodes to % x", what, p.name, b, out)
		}
	}
	return accepted
}

// t2Message draws a valid message of a random type with random fields and
// returns its encoding, its input size and a function that parses a packet
// and reports whether it equals the message drawn.
func t2Message(rng *rand.Rand, d *t2Decoder) (b []byte, size int, same func([]byte) bool) {
	frame := func() int32 {
		switch rng.IntN(4) {
		case 0:
			return -1
		case 1:
			return rng.Int32()
		default:
			return rng.Int32N(100000)
		}
	}
	seq := uint16(rng.Uint32())
	switch rng.IntN(9) {
	case 0:
		m := wire.SyncRequest{Seq: seq, Nonce: rng.Uint64(), Protocol: uint16(rng.Uint32()), Settings: rng.Uint64()}
		return m.Append(nil), 0, func(b []byte) bool { g, _, err := wire.ParseSyncRequest(b); return err == nil && g == m }
	case 1:
		m := wire.SyncReply{Seq: seq, Nonce: rng.Uint64(), Protocol: uint16(rng.Uint32()), Settings: rng.Uint64()}
		return m.Append(nil), 0, func(b []byte) bool { g, _, err := wire.ParseSyncReply(b); return err == nil && g == m }
	case 2:
		m := wire.InputAck{Seq: seq, Ack: frame()}
		return m.Append(nil), 0, func(b []byte) bool { g, _, err := wire.ParseInputAck(b); return err == nil && g == m }
	case 3:
		m := wire.QualityReport{Seq: seq, FrameAdvantage: int32(rng.IntN(41) - 20), Ping: rng.Uint64() >> uint(rng.IntN(64))}
		return m.Append(nil), 0, func(b []byte) bool { g, _, err := wire.ParseQualityReport(b); return err == nil && g == m }
	case 4:
		m := wire.QualityReply{Seq: seq, Pong: rng.Uint64() >> uint(rng.IntN(64))}
		return m.Append(nil), 0, func(b []byte) bool { g, _, err := wire.ParseQualityReply(b); return err == nil && g == m }
	case 5:
		m := wire.KeepAlive{Seq: seq}
		return m.Append(nil), 0, func(b []byte) bool { g, _, err := wire.ParseKeepAlive(b); return err == nil && g == m }
	case 6:
		m := wire.Checksum{Seq: seq, Frame: frame(), Checksum: rng.Uint32()}
		return m.Append(nil), 0, func(b []byte) bool { g, _, err := wire.ParseChecksum(b); return err == nil && g == m }
	case 7:
		m := wire.Disconnect{Seq: seq}
		return m.Append(nil), 0, func(b []byte) bool { g, _, err := wire.ParseDisconnect(b); return err == nil && g == m }
	}
	m := t2Input(rng)
	b = m.Append(nil)
	return b, m.Size, func(p []byte) bool {
		g := wire.Input{Size: m.Size}
		if _, err := wire.ParseInput(p, &g, d.inputs, d.status); err != nil {
			return false
		}
		return g.Seq == m.Seq && g.Ack == m.Ack && g.Start == m.Start && g.Frames == m.Frames &&
			g.Players == m.Players && bytes.Equal(g.Inputs, m.Inputs) &&
			fmt.Sprint(g.Status) == fmt.Sprint(m.Status)
	}
}

// t2Input draws an Input a session could send: 1 to 8 players carried (of
// up to 64), inputs held, changing or zero, statuses for larger sessions,
// trimmed until it fits a packet.
func t2Input(rng *rand.Rand) wire.Input {
	size := []int{1, 2, 2, 4, 8, wire.MaxInputSize}[rng.IntN(6)]
	var players uint64
	for range rng.IntN(8) + 1 {
		players |= 1 << rng.IntN(wire.MaxPlayers)
	}
	m := wire.Input{
		Seq:     uint16(rng.Uint32()),
		Start:   rng.Int32N(1 << uint(rng.IntN(31))),
		Frames:  rng.IntN(wire.MaxFrames + 1),
		Players: players,
		Size:    size,
	}
	m.Ack = int32(rng.Int64N(int64(m.Start)+int64(m.Frames)+1)) - 1
	if int64(m.Start)+int64(m.Frames) > 1<<31-1 {
		m.Frames = 0
	}
	stride := bits.OnesCount64(players) * size
	hold, zero := rng.Float64(), rng.Float64()*0.5
	m.Inputs = make([]byte, m.Frames*stride)
	for i := range m.Inputs {
		switch r := rng.Float64(); {
		case i >= stride && r < hold:
			m.Inputs[i] = m.Inputs[i-stride]
		case r < hold+zero:
			m.Inputs[i] = 0
		default:
			m.Inputs[i] = byte(rng.Uint32())
		}
	}
	if rng.IntN(3) == 0 {
		m.Status = make([]wire.PeerStatus, rng.IntN(wire.MaxPlayers)+1)
		for k := range m.Status {
			m.Status[k] = wire.PeerStatus{Connected: rng.IntN(4) != 0, LastFrame: m.Start + rng.Int32N(256) - 128}
		}
	}
	for m.Check() != nil { // too large: send fewer frames, as a session would
		m.Frames /= 2
		m.Inputs = m.Inputs[:m.Frames*stride]
	}
	return m
}

// t2Mutate returns a damaged copy of b (other is a second packet to splice).
func t2Mutate(rng *rand.Rand, b, other []byte) []byte {
	m := append([]byte(nil), b...)
	switch rng.IntN(9) {
	case 8: // split what may be a run or literal token of an Input in two: same bytes, another coding
		if len(m) > wire.HeaderLen {
			p := wire.HeaderLen + rng.IntN(len(m)-wire.HeaderLen)
			c := int(m[p])
			switch {
			case c < 0x80 && c&1 == 0 && c >= 4: // a run of c/2+2 zeros as two runs
				l := c/2 + 2
				a := 2 + rng.IntN(l-3)
				m = append(m[:p], append([]byte{byte(a-2) << 1, byte(l-a-2) << 1}, m[p+1:]...)...)
			case c < 0x80 && c&1 == 1 && c >= 3 && p+1+c/2+1 <= len(m): // a literal as two literals
				l := c/2 + 1
				a := 1 + rng.IntN(l-1)
				m[p] = byte(a-1)<<1 | 1
				at := p + 1 + a
				m = append(m[:at], append([]byte{byte(l-a-1)<<1 | 1}, m[at:]...)...)
			}
		}
	case 0: // flip one to four bits
		for range rng.IntN(4) + 1 {
			if len(m) > 0 {
				m[rng.IntN(len(m))] ^= 1 << rng.IntN(8)
			}
		}
	case 1: // overwrite a byte with an interesting value
		if len(m) > 0 {
			m[rng.IntN(len(m))] = []byte{0, 1, 0x7f, 0x80, 0xff, 0xfe}[rng.IntN(6)]
		}
	case 2: // insert bytes
		at := rng.IntN(len(m) + 1)
		ins := make([]byte, rng.IntN(4)+1)
		for i := range ins {
			ins[i] = byte(rng.Uint32())
		}
		m = append(m[:at], append(ins, m[at:]...)...)
	case 3: // delete bytes
		if len(m) > 0 {
			at := rng.IntN(len(m))
			m = append(m[:at], m[min(len(m), at+rng.IntN(4)+1):]...)
		}
	case 4: // truncate
		m = m[:rng.IntN(len(m)+1)]
	case 5: // splice: the head of one packet, the tail of another
		m = append(m[:rng.IntN(len(m)+1)], other[rng.IntN(len(other)+1):]...)
	case 6: // forge the version-and-type byte
		if len(m) > 0 {
			m[0] = byte(rng.Uint32())
		}
	default: // extend with garbage, sometimes past MaxPacket
		n := rng.IntN(8) + 1
		if rng.IntN(50) == 0 {
			n = wire.MaxPacket
		}
		for range n {
			m = append(m, byte(rng.Uint32()))
		}
	}
	return m
}

func TestT2Codec(t *testing.T) {
	d := newT2Decoder()

	// Every fuzz corpus entry.
	entries := t2Corpus(t)
	for _, e := range entries {
		for _, size := range []int{e.size, 1, 2, 4, wire.MaxInputSize} {
			t2Feed(t, d, e.data, size, "corpus "+e.file)
		}
	}
	t.Logf("T2: %d fuzz corpus entries", len(entries))

	// A seeded stream of valid, mutated and random packets.
	seed := baseSeed()
	rng := rand.New(rand.NewPCG(seed, 0x72))
	n := scaled(t2Packets)
	prev := []byte{0x17, 0, 0}
	var valid, mutated, accepted int
	for i := range n {
		b, size, same := t2Message(rng, d)
		what := fmt.Sprintf("seed %d packet %d", seed, i)
		if !same(b) {
			t.Fatalf("%s: valid message % x does not parse back to what was encoded", what, b)
		}
		if t2Feed(t, d, b, size, what) == 0 {
			t.Fatalf("%s: valid message % x accepted by no decoder", what, b)
		}
		valid++
		if i%16 == 0 { // every strict prefix is short
			for k := range len(b) {
				for _, p := range t2Parsers[2:] {
					if _, err := p.parse(d, b[:k], size); !errors.Is(err, io.ErrUnexpectedEOF) &&
						!errors.Is(err, wire.ErrType) {
						t.Fatalf("%s: %s of a %d-byte prefix of % x: %v", what, p.name, k, b, err)
					}
				}
			}
		}
		for range 4 {
			m := t2Mutate(rng, b, prev)
			accepted += t2Feed(t, d, m, size, what+" mutated")
			mutated++
		}
		r := make([]byte, rng.IntN(64))
		for k := range r {
			r[k] = byte(rng.Uint32())
		}
		if rng.IntN(2) == 0 && len(r) > 0 {
			r[0] = wire.Version<<4 | byte(rng.IntN(9)+1) // get past the header check
		}
		t2Feed(t, d, r, rng.IntN(wire.MaxInputSize+2), what+" random")
		prev = b
	}
	t.Logf("T2: seed %d: %d valid packets, %d mutated (%d decoder acceptances), %d random",
		seed, valid, mutated, accepted, n)
}

type t2Entry struct {
	file string
	data []byte
	size int
}

// t2Corpus reads the fuzz corpus entries of the wire's and codec's targets:
// the ones kept in the repository and, when present, this machine's fuzz
// cache.
func t2Corpus(t *testing.T) []t2Entry {
	pkgs := [][]string{{"internal", "wire"}, {"codec"}}
	var dirs []string
	for _, p := range pkgs {
		dirs = append(dirs, filepath.Join(append(append([]string{".."}, p...), "testdata", "fuzz")...))
	}
	cache := os.Getenv("GOCACHE")
	if cache == "" {
		if c, err := os.UserCacheDir(); err == nil {
			cache = filepath.Join(c, "go-build")
		}
	}
	if cache != "" {
		for _, p := range pkgs {
			dirs = append(dirs, filepath.Join(append([]string{cache, "fuzz", "github.com", "rollnet", "rollnet"}, p...)...))
		}
	}
	var out []t2Entry
	for _, dir := range dirs {
		targets, err := os.ReadDir(dir)
		if err != nil {
			continue // no corpus there
		}
		for _, target := range targets {
			files, err := os.ReadDir(filepath.Join(dir, target.Name()))
			if err != nil {
				continue
			}
			for _, f := range files {
				path := filepath.Join(dir, target.Name(), f.Name())
				e, err := t2ReadEntry(path)
				if err != nil {
					t.Fatalf("corpus entry %s: %v", path, err)
				}
				out = append(out, e)
			}
		}
	}
	return out
}

// t2OtherInteger reports whether line is a corpus value of a wider
// integer type than an input size's byte, such as uint16(16).
func t2OtherInteger(line string) bool {
	for _, ty := range []string{"int", "int8", "int16", "int32", "int64", "uint", "uint16", "uint32", "uint64"} {
		if v, ok := strings.CutPrefix(line, ty+"("); ok && strings.HasSuffix(v, ")") {
			_, err := strconv.ParseInt(strings.TrimSuffix(v, ")"), 0, 64)
			return err == nil
		}
	}
	return false
}

// t2ReadEntry reads one file of the "go test fuzz v1" format: a []byte
// value, and for FuzzParseInput a byte (the input size) after it; another
// target's integer after it is read and left.
func t2ReadEntry(path string) (t2Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return t2Entry{}, err
	}
	defer f.Close()
	e := t2Entry{file: path, size: 2}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	if !sc.Scan() || sc.Text() != "go test fuzz v1" {
		return e, errors.New("not a go test fuzz v1 file")
	}
	seen := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "[]byte(") && strings.HasSuffix(line, ")") && !seen:
			s, err := strconv.Unquote(line[len("[]byte(") : len(line)-1])
			if err != nil {
				return e, err
			}
			e.data, seen = []byte(s), true
		case strings.HasPrefix(line, "byte(") || strings.HasPrefix(line, "uint8("):
			v := line[strings.IndexByte(line, '(')+1 : len(line)-1]
			if n, err := strconv.ParseUint(v, 0, 8); err == nil {
				e.size = int(n)
			} else if r, _, tail, err := strconv.UnquoteChar(strings.TrimSuffix(strings.TrimPrefix(v, "'"), "'"), '\''); err == nil && tail == "" && r < 256 {
				e.size = int(r) // a byte written as a rune literal, e.g. '\x11' or 'À'
			} else {
				return e, fmt.Errorf("input size %q", v)
			}
		case t2OtherInteger(line):
			// another target's integer argument (FuzzRange's length): the
			// bytes are still fed to the decoders, at the default size
		case line == "":
		default:
			return e, fmt.Errorf("unexpected line %q", line)
		}
	}
	if !seen {
		return e, errors.New("no []byte value")
	}
	return e, sc.Err()
}
