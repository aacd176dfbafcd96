package rollback

import (
	"math"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
)

type Ball struct {
	X, Y   int32
	VX, VY float64
}

type Paddle struct {
	Y     int16
	Score uint16
	Hit   bool
	_     [3]byte
}

type Court struct {
	Ball    Ball
	Paddles [2]Paddle
	Grid    [2][3]int8
	_       [2]byte
	Spin    complex64
	Tick    uint64
	Flags   [8]uint8
}

func TestDiffNamesFieldsByPath(t *testing.T) {
	var a Court
	a.Ball = Ball{X: 10, Y: 20, VX: 0.1, VY: -3}
	a.Paddles[1].Score = 7
	a.Grid[1][2] = -4
	b := a
	fields, total, err := diffOf(&a, &b, -1)
	require.NoError(t, err)
	require.Empty(t, fields)
	require.Zero(t, total)

	b.Ball.VX = 0.1 + 1e-17*8 // one ulp or so: still a difference
	b.Paddles[1].Score = 8
	b.Paddles[0].Hit = true
	b.Grid[1][2] = 5
	b.Spin = complex(1, -2)
	b.Tick = math.MaxUint64
	fields, total, err = diffOf(&a, &b, -1)
	require.NoError(t, err)
	require.Equal(t, 6, total)
	got := make([]string, len(fields))
	for i, f := range fields {
		got[i] = f.String()
	}
	require.Equal(t, []string{
		"Court.Ball.VX: 0.1 vs 0.10000000000000007",
		"Court.Paddles[0].Hit: false vs true",
		"Court.Paddles[1].Score: 7 vs 8",
		"Court.Grid[1][2]: -4 vs 5",
		"Court.Spin: (0+0i) vs (1-2i)",
		"Court.Tick: 0 vs 18446744073709551615",
	}, got)
	require.Equal(t, int(reflect.TypeFor[Court]().Field(0).Type.Field(2).Offset), fields[0].Offset)
	require.Equal(t, reflect.Float64, fields[0].Kind)

	// A limit keeps the first fields and still counts them all.
	fields, total, err = diffOf(&a, &b, 2)
	require.NoError(t, err)
	require.Equal(t, 6, total)
	require.Len(t, fields, 2)
	require.Equal(t, "Court.Paddles[0].Hit", fields[1].Path)
}

// Explicit padding is a field like any other: a byte written there is
// named, so a game that forgets to keep it zero finds out where.
func TestDiffExplicitPadding(t *testing.T) {
	var a, b Court
	BytesOf(&b)[reflect.TypeFor[Court]().Field(3).Offset+1] = 9
	fields, total, err := diffOf(&a, &b, -1)
	require.NoError(t, err)
	require.Equal(t, 1, total)
	require.Equal(t, "Court._[1]: 0 vs 9", fields[0].String())
}

func TestDiffEveryScalarKind(t *testing.T) {
	type all struct {
		B   bool
		I8  int8
		I16 int16
		I32 int32
		I64 int64
		U8  uint8
		_   [1]byte
		U16 uint16
		U32 uint32
		F32 float32
		_   [4]byte
		U64 uint64
		F64 float64
		C64 complex64
		C   complex128
	}
	a := all{}
	b := all{B: true, I8: -1, I16: -2, I32: -3, I64: -4, U8: 5, U16: 6, U32: 7, F32: 1.5, U64: 8, F64: -0.25, C64: 1i, C: -2}
	fields, total, err := diffOf(&a, &b, -1)
	require.NoError(t, err)
	require.Equal(t, 13, total)
	var bs []string
	for _, f := range fields {
		bs = append(bs, f.B)
	}
	require.Equal(t, []string{"true", "-1", "-2", "-3", "-4", "5", "6", "7", "1.5", "8", "-0.25", "(0+1i)", "(-2+0i)"}, bs)

	// A bool byte that is no Go bool is shown as the byte it is.
	BytesOf(&a)[0] = 7
	fields, _, err = diffOf(&a, &b, 1)
	require.NoError(t, err)
	require.Equal(t, "bool(0x7)", fields[0].A)
}

func TestDiffBytesRefuses(t *testing.T) {
	_, _, err := DiffBytes(reflect.TypeFor[Court](), make([]byte, 3), make([]byte, 3), -1)
	require.ErrorIs(t, err, errSize)
	_, _, err = DiffBytes(reflect.TypeFor[padded](), make([]byte, 8), make([]byte, 8), -1)
	var te *typeError
	require.ErrorAs(t, err, &te)
	require.Equal(t, "padded.B", te.Path)
	_, _, err = DiffBytes(reflect.TypeFor[[4]uint8](), []byte{1, 2, 3, 4}, []byte{1, 2, 0, 4}, -1)
	require.NoError(t, err)
	fields, _, _ := DiffBytes(reflect.TypeFor[[4]uint8](), []byte{1, 2, 3, 4}, []byte{1, 2, 0, 4}, -1)
	require.Equal(t, "[4]uint8[2]: 3 vs 0", fields[0].String())
}

// FuzzDiffBytes: any bytes of the right length diff without a panic, a
// state never differs from itself, and the count is symmetric.
func FuzzDiffBytes(f *testing.F) {
	var a, b Court
	b.Ball.VX, b.Paddles[1].Hit, b.Grid[1][0] = 1.5, true, -3
	f.Add(BytesOf(&a), BytesOf(&b))
	t := reflect.TypeFor[Court]()
	f.Fuzz(func(tt *testing.T, x, y []byte) {
		n := int(t.Size())
		if len(x) < n || len(y) < n {
			_, _, err := DiffBytes(t, x, y, -1)
			require.ErrorIs(tt, err, errSize)
			return
		}
		x, y = x[:n], y[:n]
		fxy, nxy, err := DiffBytes(t, x, y, 3)
		require.NoError(tt, err)
		_, nyx, _ := DiffBytes(t, y, x, 0)
		require.Equal(tt, nxy, nyx)
		require.Len(tt, fxy, min(nxy, 3))
		_, self, _ := DiffBytes(t, x, x, -1)
		require.Zero(tt, self)
	})
}

// diffOf is DiffBytes of two typed states.
func diffOf[T any](a, b *T, max int) ([]FieldDiff, int, error) {
	return DiffBytes(reflect.TypeFor[T](), BytesOf(a), BytesOf(b), max)
}
