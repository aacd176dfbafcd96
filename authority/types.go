package authority

import (
	"encoding/binary"
	"fmt"
	"reflect"

	"github.com/rollnet/rollnet/codec"
	"github.com/rollnet/rollnet/internal/link"
	"github.com/rollnet/rollnet/rollback"
)

// protocol is the authoritative protocol's version, part of the settings
// hash.
const protocol = 2

// maxState is the largest state, in bytes, a host sends: a body of it,
// however incompressible, fits codec.MaxStateBody.
const maxState = 64 << 10

// checkTypes checks S and I can travel: pointer-free, gap-free,
// fixed-width (rollback.CheckType), S at most maxState bytes, I at most
// codec.MaxInputSize bytes and without bools (a byte from the network
// other than 0 or 1 would not be a Go bool).
func checkTypes[S any, I comparable]() (stateSize, inputSize int, err error) {
	ts, ti := reflect.TypeFor[S](), reflect.TypeFor[I]()
	if err := rollback.CheckType(ts); err != nil {
		return 0, 0, fmt.Errorf("%w: state type: %w", ErrConfig, err)
	}
	if err := rollback.CheckType(ti); err != nil {
		return 0, 0, fmt.Errorf("%w: input type: %w", ErrConfig, err)
	}
	switch {
	case ts.Size() == 0 || ts.Size() > maxState:
		return 0, 0, fmt.Errorf("%w: state type %s is %d bytes, want 1..%d", ErrConfig, ts, ts.Size(), maxState)
	case ti.Size() == 0 || ti.Size() > 32:
		return 0, 0, fmt.Errorf("%w: input type %s is %d bytes, want 1..32", ErrConfig, ti, ti.Size())
	case holdsBool(ti):
		return 0, 0, fmt.Errorf("%w: input type %s holds a bool; use a uint8", ErrConfig, ti)
	}
	return int(ts.Size()), int(ti.Size()), nil
}

func holdsBool(t reflect.Type) bool {
	if t.Kind() == reflect.Bool {
		return true
	}
	if t.Kind() == reflect.Array {
		return holdsBool(t.Elem())
	}
	if t.Kind() == reflect.Struct {
		for i := range t.NumField() {
			if holdsBool(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// settingsHash is what host and client must agree on: the protocol, the
// players, the sizes of a state and an input, the frame rate and the
// game's own settings. A Hello with another hash gets no answer.
func settingsHash(players, stateSize, inputSize int, n *link.Settings) uint64 {
	return link.SettingsHash(protocol, uint64(players), uint64(stateSize), uint64(inputSize), uint64(n.FrameRate), n.Game)
}

// xorInto sets dst[i] = a[i] ^ b[i], eight bytes at a time.
func xorInto(dst, a, b []byte) {
	n := len(dst)
	a, b = a[:n], b[:n]
	i := 0
	for ; i+8 <= n; i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], binary.LittleEndian.Uint64(a[i:])^binary.LittleEndian.Uint64(b[i:]))
	}
	for ; i < n; i++ {
		dst[i] = a[i] ^ b[i]
	}
}

// RejoinToken is what a client needs to come back into its slots: random
// 128 bits a host gives each client with its slots, valid while the client
// is connected and for the host's grace window after. The zero RejoinToken
// is none.
type RejoinToken [codec.TokenLen]byte
