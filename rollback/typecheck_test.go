package rollback

import (
	"errors"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
)

type Player struct {
	X, Y  int32
	Name  string
	Score uint16
}

type World struct {
	Frame   uint32
	Players [2]Player
}

type padded struct {
	A uint8
	B int32
}

type paddedExplicit struct {
	A uint8
	_ [3]byte
	B int32
}

type tailPadded struct {
	A int64
	B uint8
}

type tailPaddedExplicit struct {
	A int64
	B uint8
	_ [7]byte
}

type nestedPad struct {
	Frame  uint32
	Pieces [3]padded
}

type goodGame struct {
	Frame  uint32
	Alive  bool
	Dir    int8
	Mode   uint16
	Pos    [2]float32
	Vel    complex64
	Pieces [3]paddedExplicit
	Seed   uint64
	Empty  struct{}
	Grid   [2][2]int16
}

type namedInt int

type emptyStruct struct{}

type withEmptyArray struct {
	A int32
	_ [0]string
	B int32
}

func TestCheckTypeTable(t *testing.T) {
	good := []reflect.Type{
		reflect.TypeFor[bool](),
		reflect.TypeFor[int8](), reflect.TypeFor[int16](), reflect.TypeFor[int32](), reflect.TypeFor[int64](),
		reflect.TypeFor[uint8](), reflect.TypeFor[uint16](), reflect.TypeFor[uint32](), reflect.TypeFor[uint64](),
		reflect.TypeFor[float32](), reflect.TypeFor[float64](),
		reflect.TypeFor[complex64](), reflect.TypeFor[complex128](),
		reflect.TypeFor[[16]byte](),
		reflect.TypeFor[[3][5]uint16](),
		reflect.TypeFor[paddedExplicit](),
		reflect.TypeFor[tailPaddedExplicit](),
		reflect.TypeFor[goodGame](),
		reflect.TypeFor[struct{ A, B int32 }](),
		reflect.TypeFor[modelState](),
	}
	for _, typ := range good {
		require.NoError(t, CheckType(typ), "%v", typ)
	}

	bad := []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[World](), "rollback: World.Players[].Name: string is not allowed"},
		{reflect.TypeFor[int](), "rollback: int: int is not allowed (its width depends on the platform; use a fixed-width type such as int32 or int64)"},
		{reflect.TypeFor[uint](), "rollback: uint: uint is not allowed (its width depends on the platform; use a fixed-width type such as int32 or int64)"},
		{reflect.TypeFor[uintptr](), "rollback: uintptr: uintptr is not allowed (its width depends on the platform; use a fixed-width type such as int32 or int64)"},
		{reflect.TypeFor[namedInt](), "rollback: namedInt: rollback.namedInt is not allowed (its width depends on the platform; use a fixed-width type such as int32 or int64)"},
		{reflect.TypeFor[struct{ P *int32 }](), "rollback: struct { P *int32 }.P: *int32 is not allowed"},
		{reflect.TypeFor[[]byte](), "rollback: []uint8: []uint8 is not allowed"},
		{reflect.TypeFor[map[int32]int32](), "rollback: map[int32]int32: map[int32]int32 is not allowed"},
		{reflect.TypeFor[string](), "rollback: string: string is not allowed"},
		{reflect.TypeFor[chan int32](), "rollback: chan int32: chan int32 is not allowed"},
		{reflect.TypeFor[func()](), "rollback: func(): func() is not allowed"},
		{reflect.TypeFor[any](), "rollback: interface {}: interface {} is not allowed"},
		{reflect.TypeFor[error](), "rollback: error: error is not allowed"},
		{reflect.TypeFor[[4]*uint8](), "rollback: [4]*uint8[]: *uint8 is not allowed"},
		{reflect.TypeFor[padded](), "rollback: padded.B: 3 bytes of compiler padding before this field are not allowed (add an explicit `_ [3]byte` field)"},
		{reflect.TypeFor[tailPadded](), "rollback: tailPadded: 7 bytes of compiler padding at the end of the struct are not allowed (add an explicit `_ [7]byte` field)"},
		{reflect.TypeFor[nestedPad](), "rollback: nestedPad.Pieces[].B: 3 bytes of compiler padding before this field are not allowed (add an explicit `_ [3]byte` field)"},
		{reflect.TypeFor[withEmptyArray](), "rollback: withEmptyArray._[]: string is not allowed"},
		{reflect.TypeFor[emptyStruct](), "rollback: emptyStruct: zero-size type is not allowed"},
		{reflect.TypeFor[struct{}](), "rollback: struct {}: zero-size type is not allowed"},
		{reflect.TypeFor[[0]int32](), "rollback: [0]int32: zero-size type is not allowed"},
		{nil, "rollback: <nil>: nil type is not allowed"},
	}
	for _, c := range bad {
		err := CheckType(c.typ)
		require.ErrorIs(t, err, ErrStateType, "%v", c.typ)
		require.EqualError(t, err, c.want)
		var te *typeError
		require.True(t, errors.As(err, &te))
		require.Equal(t, c.typ, te.Type)
	}
}
