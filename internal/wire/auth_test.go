package wire

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
	authSightBuf = make([]byte, MaxFrames*SightLen)
	// A body's sizes are the caller's (host and client agree on them):
	// the samples' and fuzz targets' are four bytes of inputs and a
	// 700-byte state.
	bodyDataBuf = make([]byte, 704)
)

// bodyNear is the newest frame the samples' and fuzz targets' deltas are
// decoded near.
const bodyNear = 70000

// authReencode parses a whole packet of type t (or a state body, t == 0)
// and re-encodes what it got.
func authReencode(t Type, b []byte) ([]byte, error) {
	var out []byte
	var n int
	var err error
	switch t {
	case 0:
		var m StateBody
		if n, err = ParseStateBody(b, &m, bodyDataBuf, bodyNear); err == nil {
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
		if n, err = ParseAuthInput(b, &m, authInputBuf, authSightBuf); err == nil {
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
		{name: "hello", t: TypeHello, b: Hello{Seq: 1, Settings: 0xabcdef, Nonce: 42, Protocol: 3}.Append(nil)},
		{name: "hello resume", t: TypeHello, b: Hello{Seq: 2, Settings: 1, Nonce: math.MaxUint64, Resume: true, Token: token, Protocol: 255}.Append(nil)},
		{name: "hello protocol 2", t: TypeHello, b: Hello{Seq: 2, Settings: 1, Nonce: 5, Protocol: 2}.Append(nil)},
		{name: "welcome refused", t: TypeWelcome, b: Welcome{Seq: 4, Kind: WelcomeRefused, Nonce: 7,
			Host: AuthSettings{Protocol: 3, Players: 3, StateSize: 56, InputSize: 1, FrameRate: 60, Game: 0xc0ffee}}.Append(nil)},
		{name: "welcome refused big", t: TypeWelcome, b: Welcome{Seq: 4, Kind: WelcomeRefused, Nonce: 7,
			Host: AuthSettings{Protocol: 9, Players: MaxAuthPlayers, StateSize: 1 << 20, InputSize: MaxInputSize, FrameRate: 1000, Game: math.MaxUint64}}.Append(nil)},
		{name: "welcome sync", t: TypeWelcome, b: Welcome{Seq: 3, Kind: WelcomeSync, Nonce: 42, Token: token, First: 2, Slots: 1, Frame: 1234}.Append(nil)},
		{name: "welcome resume", t: TypeWelcome, b: Welcome{Seq: 3, Kind: WelcomeResume, Nonce: 42, Token: token, First: 0, Slots: 64, Frame: math.MaxInt32}.Append(nil)},
		{name: "welcome slot 255", t: TypeWelcome, b: Welcome{Seq: 3, Kind: WelcomeSync, Nonce: 1, Token: token, First: 255, Slots: 1, Frame: 9}.Append(nil)},
		{name: "welcome reject", t: TypeWelcome, b: Welcome{Seq: 4, Kind: WelcomeReject, Nonce: 7}.Append(nil)},
		{name: "hold", t: TypeWelcome, b: Welcome{Seq: 5, Kind: WelcomeHold, Nonce: 7, Stop: 1234, Until: 1234, Age: 2500, N: 1,
			Players: [MaxHoldPlayers]HoldPlayer{{Player: 3}}}.Append(nil)},
		{name: "hold released", t: TypeWelcome, b: Welcome{Seq: 5, Kind: WelcomeHold, Nonce: 7, Stop: 9, Until: 9 + MaxLease, Age: math.MaxUint32, N: MaxHoldPlayers,
			Players: [MaxHoldPlayers]HoldPlayer{{Player: 255, Outcome: HoldBack}, {Player: 1, Outcome: HoldDropped}, {}, {}, {}, {}, {}, {Player: 7}}}.Append(nil)},
		{name: "hold forfeit", t: TypeWelcome, b: Welcome{Seq: 5, Kind: WelcomeHold, Nonce: 1, Forfeit: true, Stop: math.MaxInt32, Until: math.MaxInt32}.Append(nil)},
		{name: "input marker", t: TypeAuthInput, b: AuthInput{Seq: 5, Ack: -1, Start: 77, Slots: 1, Size: 2}.Append(nil)},
		{name: "input", t: TypeAuthInput, b: AuthInput{Seq: 6, Ack: 70, Start: 75, Frames: 8, Slots: 1, Size: 2, Inputs: heldInputs(8)}.Append(nil)},
		{name: "input two slots", t: TypeAuthInput, b: AuthInput{Seq: 7, Ack: 3, Start: 0, Frames: 10, Slots: 2, Size: 3, Inputs: patternInputs(60, 4)}.Append(nil)},
		{name: "input sights", t: TypeAuthInput, b: AuthInput{Seq: 6, Ack: 70, Start: 75, Frames: 8, Slots: 1, Size: 2, Inputs: heldInputs(8), Sights: steadySights(8)}.Append(nil)},
		{name: "input no sight", t: TypeAuthInput, b: AuthInput{Seq: 6, Ack: -1, Start: 0, Frames: 2, Slots: 2, Size: 1, Inputs: []byte{1, 2, 3, 4}, Sights: []byte{0xff, 0xff, 0, 0, 12, 1, 0, 1}}.Append(nil)},
		{name: "fragment", t: TypeStateFragment, b: StateFragment{Seq: 8, Count: 1, Chunk: []byte{0x81, 2, 3}}.Append(nil)},
		{name: "fragment first", t: TypeStateFragment, b: StateFragment{Seq: 8, Msg: 9, Index: 0, Count: 2, Chunk: big[:MaxChunk]}.Append(nil)},
		{name: "fragment full", t: TypeStateFragment, b: StateFragment{Seq: 8, Msg: math.MaxUint32, Index: 63, Count: 64, Chunk: big[:MaxChunk]}.Append(nil)},
		{name: "nack", t: TypeNack, b: Nack{Seq: 9, Msg: 12, Missing: 0b1010}.Append(nil)},
		{name: "body full", t: 0, b: StateBody{Frame: 10, Base: -1, Checked: true, InputAck: 9, Advice: true, Depth: 210, Rate: -20,
			Checksum: 0xfeed, Data: append([]byte{1, 2, 3, 4}, big[:700]...)}.Append(nil)},
		{name: "body delta", t: 0, b: StateBody{Frame: bodyNear + 11, Base: bodyNear + 10, Checked: true, InputAck: -1, Advice: true, Depth: -5, Rate: MaxRate,
			Checksum: 1, Data: make([]byte, 704)}.Append(nil)},
		{name: "body unchecked", t: 0, b: StateBody{Frame: bodyNear + 3, Base: bodyNear + 3 - MaxBaseDistance,
			Data: append(make([]byte, 300), 9, 0, 0, 0, 7)}.Append(nil)},
		{name: "body lease", t: 0, b: StateBody{Frame: bodyNear + 11, Base: bodyNear + 10, Advice: true, Depth: 20, Rate: 3, Lease: 17,
			Data: append(make([]byte, 300), 9, 0, 0, 0, 7)}.Append(nil)},
		{name: "body lease full", t: 0, b: StateBody{Frame: 40, Base: -1, Checked: true, InputAck: 39, Advice: true, Lease: MaxLease,
			Checksum: 2, Data: []byte{1, 2, 3, 4}}.Append(nil)},
		{name: "body far", t: 0, b: StateBody{Frame: math.MaxInt32, Base: -1, Checked: true, InputAck: math.MaxInt32,
			Checksum: math.MaxUint32, Data: append([]byte{0, 0, 7, 0}, big[1000:1700]...)}.Append(nil)},
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
		Hello{Nonce: 1, Protocol: 3}, Hello{Resume: true, Protocol: 2}, Welcome{Kind: WelcomeSync, Slots: 1, Frame: 300}, Welcome{Kind: WelcomeReject},
		Welcome{Kind: WelcomeRefused, Host: AuthSettings{Protocol: 3, Players: 200, StateSize: 70000, InputSize: 2, FrameRate: 144}},
		AuthInput{Ack: 5, Start: 9, Frames: 2, Slots: 1, Size: 1, Inputs: []byte{3, 4}},
		AuthInput{Ack: 5, Start: 9, Frames: 3, Slots: 1, Size: 1, Inputs: []byte{3, 4, 5}, Sights: steadySights(3)},
		StateFragment{Msg: 300, Count: 2, Chunk: []byte{1}}, StateFragment{Count: 1, Chunk: []byte{0x80, 2}}, Nack{Msg: 1 << 20, Missing: 1},
	} {
		require.Len(t, m.Append(nil), m.Len(), "%T", m)
	}
}

// Every truncated prefix of a valid message is refused, as is a trailing
// byte (a fragment's chunk is the rest of the packet, so a longer one is
// another fragment, and its prefixes down to a one-byte chunk are valid;
// a Hello without its protocol byte is protocol 2's). A state body's
// coded part runs to its end and its trailing zeros are implied, so a
// prefix that ends after a literal is another valid body: every prefix
// is refused or re-encodes to itself, and none that ends inside the head
// parses.
func TestAuthTruncatedAndTrailing(t *testing.T) {
	for _, s := range authSamples() {
		t.Run(s.name, func(t *testing.T) {
			min := 0
			if s.t == TypeStateFragment {
				min = HeaderLen + 1 // a one-byte whole body
				if s.b[HeaderLen]&0x80 == 0 {
					_, i, _ := readUvarint(s.b, HeaderLen+1)
					min = i + 2 // number, index, a one-byte chunk
				}
			}
			var head int
			if s.t == 0 {
				var m StateBody
				_, err := ParseStateBody(s.b, &m, bodyDataBuf, bodyNear)
				require.NoError(t, err)
				head = len(m.AppendHead(nil))
				if m.Checked {
					head += 4
				}
			}
			for n := range len(s.b) {
				out, err := authReencode(s.t, s.b[:n])
				switch {
				case n >= min && min > 0:
					require.NoError(t, err, "prefix %d", n)
					continue
				case s.t == TypeHello && n == len(s.b)-1 && s.b[n] >= 3:
					require.NoError(t, err, "a Hello without its protocol byte is protocol 2's")
					continue
				case s.t == 0 && n >= head && err == nil:
					require.Equal(t, s.b[:n], out, "prefix %d re-encodes to itself", n)
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
		{"hello flag 2", TypeHello, append(Hello{Protocol: 2}.Append(nil)[:HeaderLen+16], 2), ErrMalformed},
		{"hello protocol 1", TypeHello, append(Hello{Protocol: 2}.Append(nil), 1), ErrMalformed},
		{"welcome refused no players", TypeWelcome, func() []byte {
			b := Welcome{Kind: WelcomeRefused, Host: AuthSettings{Players: 1, StateSize: 1, InputSize: 1, FrameRate: 1}}.Append(nil)
			b[HeaderLen+10] = 0
			return b
		}(), ErrMalformed},
		{"welcome refused input size 33", TypeWelcome, func() []byte {
			b := Welcome{Kind: WelcomeRefused, Host: AuthSettings{Players: 1, StateSize: 1, InputSize: 1, FrameRate: 1}}.Append(nil)
			b[HeaderLen+12] = 33
			return b
		}(), ErrMalformed},
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
		{"fragment count 1", TypeStateFragment, []byte{byte(Version<<4 | byte(TypeStateFragment)), 0, 0, 1, 0, 0, 9}, ErrMalformed},
		{"fragment count 65", TypeStateFragment, []byte{byte(Version<<4 | byte(TypeStateFragment)), 0, 0, 65, 1, 0, 9}, ErrMalformed},
		{"fragment oversized", TypeStateFragment, append([]byte{byte(Version<<4 | byte(TypeStateFragment)), 0, 0, 0x80}, make([]byte, MaxChunk)...), ErrMalformed},
		{"fragment no chunk", TypeStateFragment, []byte{byte(Version<<4 | byte(TypeStateFragment)), 0, 0, 2, 1, 0}, ErrShort},
		{"nack nothing", TypeNack, Nack{Msg: 1}.Append(nil), ErrMalformed},
		{"body no mark", 0, []byte{0x40 | 1, 5, 0, 0, 0, 0, 0}, ErrMalformed},
		{"body full unchecked", 0, []byte{0x80, 5, 1, 9}, ErrMalformed},
		{"body input ack before -1", 0, append([]byte{0x80 | 0x40, 5}, appendInt32(nil, -7)...), ErrMalformed},
		{"body rate", 0, append([]byte{0x80 | 0x20 | 1, 5, 0, 0}, appendInt32(nil, MaxRate+1)...), ErrMalformed},
		{"body ends in zero", 0, []byte{0x80 | 1, 5, 0, 9, 0}, ErrMalformed},
		{"body bytes past the stream", 0, []byte{0x80 | 1, 5, 0, 1, 0, 0, 0, 0, 1}, ErrMalformed},
		{"body not on its final value", 0, []byte{0x80 | 1, 5, 0, 1}, ErrMalformed},
		{"body past the data", 0, append([]byte{0x80 | 1, 5, 0}, appendRange(nil, append(make([]byte, len(bodyDataBuf)), 1))...), ErrMalformed},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := authReencode(c.t, c.b)
			require.ErrorIs(t, err, c.err)
		})
	}
	// A body longer than the caller's data is refused; a shorter one
	// is the same body with zeros implied (the checksum tells).
	b := StateBody{Frame: 1, Base: -1, Checked: true, InputAck: -1, Data: append(patternInputs(100, 3), 1)}.Append(nil)
	var m StateBody
	_, err := ParseStateBody(b, &m, make([]byte, 100), 0)
	require.ErrorIs(t, err, ErrMalformed)
	_, err = ParseStateBody(b, &m, make([]byte, 101), 0)
	require.NoError(t, err)
	_, err = ParseStateBody(b, &m, nil, 0)
	require.ErrorIs(t, err, ErrLimit)
	// Inputs past the caller's buffer.
	in := AuthInput{Ack: -1, Start: 0, Frames: 4, Slots: 1, Size: 2, Inputs: make([]byte, 8)}.Append(nil)
	var a AuthInput
	_, err = ParseAuthInput(in, &a, make([]byte, 7), nil)
	require.ErrorIs(t, err, ErrLimit)
	// Sights past the caller's buffer (none given).
	in = AuthInput{Ack: -1, Start: 0, Frames: 4, Slots: 1, Size: 2, Inputs: make([]byte, 8), Sights: steadySights(4)}.Append(nil)
	_, err = ParseAuthInput(in, &a, make([]byte, 8), nil)
	require.ErrorIs(t, err, ErrLimit)
	_, err = ParseAuthInput(in, &a, make([]byte, 8), make([]byte, 4*SightLen))
	require.NoError(t, err)
	// Encoders refuse what would not parse.
	require.Empty(t, StateFragment{Count: 1}.Append(nil))
	require.Empty(t, StateFragment{Count: 1, Msg: 3, Chunk: []byte{0x80}}.Append(nil), "a single fragment has no number")
	require.Empty(t, StateFragment{Count: 1, Chunk: []byte{0x7f}}.Append(nil), "a whole body starts with its mark")
	require.Empty(t, AuthInput{Slots: 1, Size: 1, Frames: 1}.Append(nil))
	require.Empty(t, StateBody{Frame: 1, Base: 1, Checked: true, Data: []byte{1}}.Append(nil))
	require.Empty(t, StateBody{Frame: 40, Base: 40 - MaxBaseDistance - 1, Data: []byte{1}}.Append(nil), "a base too far")
	require.Empty(t, StateBody{Frame: 1, Base: -1, Checked: true}.Append(nil), "no data")
	require.Empty(t, StateBody{Frame: 1, Base: -1, Data: []byte{1}}.Append(nil), "a full state unchecked")
	require.Empty(t, StateBody{Frame: 2, Base: 1, Checksum: 1, Data: []byte{1}}.Append(nil), "a checksum unchecked")
	require.Empty(t, StateBody{Frame: 1, Base: -1, Checked: true, Rate: 1, Data: []byte{1}}.Append(nil), "a rate without Advice")
	require.Empty(t, Hello{Protocol: 1}.Append(nil), "protocol 1 had no Hello of this form")
	require.Equal(t, Hello{Protocol: AuthProtocol, Nonce: 3}.Append(nil), Hello{Nonce: 3}.Append(nil), "0 is this package's protocol")
	require.Empty(t, Welcome{Kind: WelcomeRefused}.Append(nil), "refused without the host's settings")
	require.Empty(t, Welcome{Kind: WelcomeHold, Stop: 5, Until: 4}.Append(nil), "a hold's Until before its Stop")
	require.Empty(t, Welcome{Kind: WelcomeHold, Stop: 5, Until: 6 + MaxLease}.Append(nil), "a hold's Until past MaxLease")
	require.Empty(t, Welcome{Kind: WelcomeHold, N: MaxHoldPlayers + 1}.Append(nil), "a hold naming too many")
	require.Empty(t, Welcome{Kind: WelcomeHold, N: 1, Players: [MaxHoldPlayers]HoldPlayer{{Outcome: 3}}}.Append(nil), "an unknown outcome")
	require.Empty(t, StateBody{Frame: 1, Base: -1, Checked: true, Lease: 1, Data: []byte{1}}.Append(nil), "a lease without Advice")
	require.Empty(t, StateBody{Frame: 1, Base: -1, Checked: true, Advice: true, Lease: MaxLease + 1, Data: []byte{1}}.Append(nil), "a lease past MaxLease")
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
	allocs.RequireZero(t, 50, func() {
		for _, s := range ss {
			switch s.t {
			case 0:
				var m StateBody
				_, _ = ParseStateBody(s.b, &m, bodyDataBuf, bodyNear)
				buf = m.Append(buf[:0])
			case TypeHello:
				m, _, _ := ParseHello(s.b)
				buf = m.Append(buf[:0])
			case TypeWelcome:
				m, _, _ := ParseWelcome(s.b)
				buf = m.Append(buf[:0])
			case TypeAuthInput:
				var m AuthInput
				_, _ = ParseAuthInput(s.b, &m, authInputBuf, authSightBuf)
				buf = m.Append(buf[:0])
			case TypeStateFragment:
				m, _, _ := ParseStateFragment(s.b)
				buf = m.Append(buf[:0])
			case TypeNack:
				m, _, _ := ParseNack(s.b)
				buf = m.Append(buf[:0])
			}
		}
	})
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

// A delta's frame travels as its low 16 bits; the decoder takes the frame
// with those bits nearest to the one it is given, across the wrap.
func TestStateBodyFrameNear(t *testing.T) {
	for _, c := range []struct{ frame, near int32 }{
		{65540, 65530}, {65530, 65540}, {40, 10}, {1<<20 + 3, 1<<20 - 20}, {math.MaxInt32, math.MaxInt32 - 5},
	} {
		b := StateBody{Frame: c.frame, Base: c.frame - 1, Data: []byte{1}}.Append(nil)
		var m StateBody
		_, err := ParseStateBody(b, &m, make([]byte, 1), c.near)
		require.NoError(t, err)
		require.Equal(t, c.frame, m.Frame, "near %d", c.near)
		require.Equal(t, c.frame-1, m.Base)
	}
	// A base before frame 0 is malformed.
	b := StateBody{Frame: 65536 + 2, Base: 65536 - 1, Data: []byte{1}}.Append(nil)
	var m StateBody
	_, err := ParseStateBody(b, &m, make([]byte, 1), 1)
	require.ErrorIs(t, err, ErrMalformed)
}
