package codec

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
)

// The authoritative messages' shared tests: round trips, every truncated
// prefix refused, trailing bytes refused, no allocation, and fuzz targets
// seeded from real encoder output that hold the encoding canonical.

var (
	authInputBuf = make([]byte, MaxFrames*MaxPlayers*MaxInputSize)
	// A body's sizes are the caller's (host and client agree on them):
	// the samples' and fuzz targets' are four bytes of inputs and a
	// 700-byte state.
	bodyInputBuf = make([]byte, 4)
	bodyDeltaBuf = make([]byte, 700)
)

// authReencode parses a whole packet of type t (or a state body, t == 0)
// and re-encodes what it got.
func authReencode(t Type, b []byte) ([]byte, error) {
	var out []byte
	var n int
	var err error
	switch t {
	case 0:
		var m StateBody
		if n, err = ParseStateBody(b, &m, bodyInputBuf, bodyDeltaBuf); err == nil {
			if cerr := m.Check(); cerr != nil {
				return nil, fmt.Errorf("parsed body fails Check: %w", cerr)
			}
			out = m.Append(nil)
		}
	case TypeHello:
		var m Hello
		if m, n, err = ParseHello(b); err == nil {
			out = m.Append(nil)
		}
	case TypeWelcome:
		var m Welcome
		if m, n, err = ParseWelcome(b); err == nil {
			out = m.Append(nil)
		}
	case TypeAuthInput:
		var m AuthInput
		if n, err = ParseAuthInput(b, &m, authInputBuf); err == nil {
			if cerr := m.Check(); cerr != nil {
				return nil, fmt.Errorf("parsed input fails Check: %w", cerr)
			}
			out = m.Append(nil)
		}
	case TypeStateFragment:
		var m StateFragment
		if m, n, err = ParseStateFragment(b); err == nil {
			out = m.Append(nil)
		}
	case TypeNack:
		var m Nack
		if m, n, err = ParseNack(b); err == nil {
			out = m.Append(nil)
		}
	default:
		return nil, fmt.Errorf("no parser for type %d", t)
	}
	if err != nil {
		return nil, err
	}
	if n != len(b) {
		return nil, fmt.Errorf("parsed %d of %d bytes", n, len(b))
	}
	return out, nil
}

var token = [TokenLen]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}

func authSamples() []sample {
	big := patternInputs(3000, 9)
	s := []sample{
		{name: "hello", t: TypeHello, b: Hello{Seq: 1, Settings: 0xabcdef, Nonce: 42}.Append(nil)},
		{name: "hello resume", t: TypeHello, b: Hello{Seq: 2, Settings: 1, Nonce: math.MaxUint64, Resume: true, Token: token}.Append(nil)},
		{name: "welcome sync", t: TypeWelcome, b: Welcome{Seq: 3, Kind: WelcomeSync, Nonce: 42, Token: token, First: 2, Slots: 1, Frame: 1234}.Append(nil)},
		{name: "welcome resume", t: TypeWelcome, b: Welcome{Seq: 3, Kind: WelcomeResume, Nonce: 42, Token: token, First: 0, Slots: 64, Frame: math.MaxInt32}.Append(nil)},
		{name: "welcome slot 255", t: TypeWelcome, b: Welcome{Seq: 3, Kind: WelcomeSync, Nonce: 1, Token: token, First: 255, Slots: 1, Frame: 9}.Append(nil)},
		{name: "welcome reject", t: TypeWelcome, b: Welcome{Seq: 4, Kind: WelcomeReject, Nonce: 7}.Append(nil)},
		{name: "input marker", t: TypeAuthInput, b: AuthInput{Seq: 5, Ack: -1, Start: 77, Slots: 1, Size: 2}.Append(nil)},
		{name: "input", t: TypeAuthInput, b: AuthInput{Seq: 6, Ack: 70, Start: 75, Frames: 8, Slots: 1, Size: 2, Inputs: heldInputs(8)}.Append(nil)},
		{name: "input two slots", t: TypeAuthInput, b: AuthInput{Seq: 7, Ack: 3, Start: 0, Frames: 10, Slots: 2, Size: 3, Inputs: patternInputs(60, 4)}.Append(nil)},
		{name: "fragment", t: TypeStateFragment, b: StateFragment{Seq: 8, Count: 1, Chunk: []byte{1, 2, 3}}.Append(nil)},
		{name: "fragment first", t: TypeStateFragment, b: StateFragment{Seq: 8, Msg: 9, Index: 0, Count: 2, Chunk: big[:MaxChunk]}.Append(nil)},
		{name: "fragment full", t: TypeStateFragment, b: StateFragment{Seq: 8, Msg: math.MaxUint32, Index: 63, Count: 64, Chunk: big[:MaxChunk]}.Append(nil)},
		{name: "nack", t: TypeNack, b: Nack{Seq: 9, Msg: 12, Missing: 0b1010}.Append(nil)},
		{name: "body full", t: 0, b: StateBody{Frame: 10, Base: -1, InputAck: 9, Advice: true, Depth: 210, Rate: -20,
			Inputs: []byte{1, 2, 3, 4}, Checksum: 0xfeed, Delta: big[:700]}.Append(nil)},
		{name: "body delta", t: 0, b: StateBody{Frame: 11, Base: 10, InputAck: -1, Advice: true, Depth: -5, Rate: MaxRate,
			Inputs: make([]byte, 4), Checksum: 1, Delta: make([]byte, 700)}.Append(nil)},
		{name: "body far", t: 0, b: StateBody{Frame: math.MaxInt32, Base: 0, InputAck: math.MaxInt32,
			Inputs: []byte{0, 0, 7, 0}, Checksum: math.MaxUint32, Delta: big[1000:1700]}.Append(nil)},
	}
	return s
}

func TestAuthRoundTrip(t *testing.T) {
	for _, s := range authSamples() {
		t.Run(s.name, func(t *testing.T) {
			out, err := authReencode(s.t, s.b)
			require.NoError(t, err)
			require.Equal(t, s.b, out)
		})
	}
}

func TestAuthLen(t *testing.T) {
	for _, m := range []interface {
		Len() int
		Append([]byte) []byte
	}{
		Hello{Nonce: 1}, Hello{Resume: true}, Welcome{Kind: WelcomeSync, Slots: 1, Frame: 300}, Welcome{Kind: WelcomeReject},
		AuthInput{Ack: 5, Start: 9, Frames: 2, Slots: 1, Size: 1, Inputs: []byte{3, 4}},
		StateFragment{Msg: 300, Count: 2, Chunk: []byte{1}}, StateFragment{Count: 1, Chunk: []byte{1, 2}}, Nack{Msg: 1 << 20, Missing: 1},
	} {
		require.Len(t, m.Append(nil), m.Len(), "%T", m)
	}
}

// Every truncated prefix of a valid message is refused, as is a trailing
// byte (a fragment's chunk is the rest of the packet, so a longer one is
// another fragment, and its prefixes down to a one-byte chunk are valid).
func TestAuthTruncatedAndTrailing(t *testing.T) {
	for _, s := range authSamples() {
		t.Run(s.name, func(t *testing.T) {
			min := 0
			if s.t == TypeStateFragment {
				min = HeaderLen + 2 // count, and a one-byte chunk
				if s.b[HeaderLen] > 1 {
					_, i, _ := readUvarint(s.b, HeaderLen+1)
					min = i + 2 // number, index, a one-byte chunk
				}
			}
			for n := range len(s.b) {
				_, err := authReencode(s.t, s.b[:n])
				if n >= min && min > 0 {
					require.NoError(t, err, "prefix %d", n)
					continue
				}
				require.Error(t, err, "prefix %d of %d", n, len(s.b))
			}
			if s.t != TypeStateFragment {
				_, err := authReencode(s.t, append(bytes.Clone(s.b), 0))
				require.ErrorIs(t, err, ErrMalformed)
			}
		})
	}
}

func TestAuthMalformed(t *testing.T) {
	bad := []struct {
		name string
		t    Type
		b    []byte
		err  error
	}{
		{"hello flag 2", TypeHello, append(Hello{}.Append(nil)[:HeaderLen+16], 2), ErrMalformed},
		{"welcome kind 0", TypeWelcome, func() []byte { b := Welcome{Kind: WelcomeReject}.Append(nil); b[HeaderLen] = 0; return b }(), ErrMalformed},
		{"welcome no slots", TypeWelcome, func() []byte {
			b := Welcome{Kind: WelcomeSync, Slots: 1}.Append(nil)
			b[HeaderLen+9+TokenLen+1] = 0
			return b
		}(), ErrMalformed},
		{"welcome slots past 256", TypeWelcome, Welcome{Kind: WelcomeSync, First: 250, Slots: 7}.Append(nil), ErrMalformed},
		{"welcome negative frame", TypeWelcome, Welcome{Kind: WelcomeSync, Slots: 1, Frame: -1}.Append(nil), ErrMalformed},
		{"input too many frames", TypeAuthInput, []byte{byte(Version<<4 | byte(TypeAuthInput)), 0, 0, 0, 0, 0x81, 0x01, 1, 1}, ErrLimit},
		{"input zero slots", TypeAuthInput, []byte{byte(Version<<4 | byte(TypeAuthInput)), 0, 0, 0, 0, 0, 0, 1}, ErrMalformed},
		{"fragment index past count", TypeStateFragment, []byte{byte(Version<<4 | byte(TypeStateFragment)), 0, 0, 2, 1, 2, 9}, ErrMalformed},
		{"fragment count 0", TypeStateFragment, []byte{byte(Version<<4 | byte(TypeStateFragment)), 0, 0, 0, 9}, ErrMalformed},
		{"fragment count 65", TypeStateFragment, []byte{byte(Version<<4 | byte(TypeStateFragment)), 0, 0, 65, 1, 0, 9}, ErrMalformed},
		{"fragment oversized", TypeStateFragment, append([]byte{byte(Version<<4 | byte(TypeStateFragment)), 0, 0, 1}, make([]byte, MaxChunk+1)...), ErrMalformed},
		{"fragment no chunk", TypeStateFragment, []byte{byte(Version<<4 | byte(TypeStateFragment)), 0, 0, 2, 1, 0}, ErrShort},
		{"nack nothing", TypeNack, Nack{Msg: 1}.Append(nil), ErrMalformed},
		{"body base past frame", 0, []byte{5, 12, 0, 0, 0, 0, 0, 0}, ErrMalformed},
		{"body input ack before -1", 0, append([]byte{5, 0}, appendInt32(nil, -7)...), ErrMalformed},
		{"body rate", 0, append([]byte{5, 1, 0, 0}, appendInt32(nil, MaxRate+1)...), ErrMalformed},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := authReencode(c.t, c.b)
			require.ErrorIs(t, err, c.err)
		})
	}
	// A body of another size than the caller's: a state longer, or
	// shorter, or inputs of another size.
	b := StateBody{Frame: 1, Base: -1, InputAck: -1, Inputs: []byte{1}, Delta: patternInputs(100, 3)}.Append(nil)
	var m StateBody
	for _, sizes := range [][2]int{{1, 99}, {1, 101}, {2, 100}} {
		_, err := ParseStateBody(b, &m, make([]byte, sizes[0]), make([]byte, sizes[1]))
		require.Error(t, err, "%v", sizes)
	}
	_, err := ParseStateBody(b, &m, make([]byte, 1), make([]byte, 100))
	require.NoError(t, err)
	_, err = ParseStateBody(b, &m, make([]byte, MaxStateInputs+1), make([]byte, 100))
	require.ErrorIs(t, err, ErrLimit)
	// Inputs past the caller's buffer.
	in := AuthInput{Ack: -1, Start: 0, Frames: 4, Slots: 1, Size: 2, Inputs: make([]byte, 8)}.Append(nil)
	var a AuthInput
	_, err = ParseAuthInput(in, &a, make([]byte, 7))
	require.ErrorIs(t, err, ErrLimit)
	// Encoders refuse what would not parse.
	require.Empty(t, StateFragment{Count: 1}.Append(nil))
	require.Empty(t, StateFragment{Count: 1, Msg: 3, Chunk: []byte{1}}.Append(nil), "a single fragment has no number")
	require.Empty(t, AuthInput{Slots: 1, Size: 1, Frames: 1}.Append(nil))
	require.Empty(t, StateBody{Frame: 1, Base: 1, Inputs: []byte{0}, Delta: []byte{1}}.Append(nil))
	require.Empty(t, StateBody{Frame: 1, Base: -1, Delta: []byte{1}}.Append(nil), "no inputs")
	require.Empty(t, StateBody{Frame: 1, Base: -1, Rate: 1, Inputs: []byte{0}, Delta: []byte{1}}.Append(nil), "a rate without Advice")
	require.ErrorIs(t, AuthInput{Slots: 64, Size: 32, Frames: 128, Inputs: patternInputs(128*64*32, 3)}.Check(), ErrTooLarge)
}

func TestAuthTypeNames(t *testing.T) {
	require.Equal(t, "Hello", TypeHello.String())
	require.Equal(t, "Nack", TypeNack.String())
	require.Equal(t, "Disconnect", TypeDisconnect.String())
	require.Equal(t, "Rejoin", TypeRejoin.String())
	require.Equal(t, Type(15), TypeNack, "the header has four bits for the type: Nack is the last")
	require.Equal(t, "Unknown", Type(0).String())
	_, _, _, err := ParseHeader([]byte{0x10, 0, 0})
	require.ErrorIs(t, err, ErrType)
}

func TestAuthAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	ss := authSamples()
	buf := make([]byte, 0, 2*MaxStateBody)
	require.Zero(t, allocs.Total(50, func() {
		for _, s := range ss {
			switch s.t {
			case 0:
				var m StateBody
				_, _ = ParseStateBody(s.b, &m, bodyInputBuf, bodyDeltaBuf)
				buf = m.Append(buf[:0])
			case TypeHello:
				m, _, _ := ParseHello(s.b)
				buf = m.Append(buf[:0])
			case TypeWelcome:
				m, _, _ := ParseWelcome(s.b)
				buf = m.Append(buf[:0])
			case TypeAuthInput:
				var m AuthInput
				_, _ = ParseAuthInput(s.b, &m, authInputBuf)
				buf = m.Append(buf[:0])
			case TypeStateFragment:
				m, _, _ := ParseStateFragment(s.b)
				buf = m.Append(buf[:0])
			case TypeNack:
				m, _, _ := ParseNack(s.b)
				buf = m.Append(buf[:0])
			}
		}
	}))
}

func fuzzAuth(f *testing.F, t Type) {
	for _, s := range authSamples() {
		f.Add(s.b)
	}
	f.Fuzz(func(tt *testing.T, b []byte) {
		out, err := authReencode(t, b)
		if err != nil {
			return
		}
		if !bytes.Equal(out, b) {
			tt.Fatalf("re-encoding differs:\n in % x\nout % x", b, out)
		}
	})
}

func FuzzParseHello(f *testing.F)         { fuzzAuth(f, TypeHello) }
func FuzzParseWelcome(f *testing.F)       { fuzzAuth(f, TypeWelcome) }
func FuzzParseAuthInput(f *testing.F)     { fuzzAuth(f, TypeAuthInput) }
func FuzzParseStateFragment(f *testing.F) { fuzzAuth(f, TypeStateFragment) }
func FuzzParseNack(f *testing.F)          { fuzzAuth(f, TypeNack) }
func FuzzParseStateBody(f *testing.F)     { fuzzAuth(f, 0) }
