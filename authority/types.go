package authority

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"time"

	"github.com/rollnet/rollnet"

	"github.com/rollnet/rollnet/internal/link"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/rollback"
)

// protocol is the authoritative protocol's version, part of the settings
// hash and sent in a Hello. Protocol 3 sends a state's checksum and the
// client's input acknowledgement every checkedEvery-th state, codes a
// state's inputs and delta as one run without its trailing zeros, sends a
// body that fits one packet without a fragment count, and refuses a Hello
// of other settings with the host's (WelcomeRefused). Protocol 6 range
// codes them, protocol 7 by word positions (see doc.go's Wire).
const protocol = Protocol

// Protocol is the authoritative protocol's version a client says Hello with
// (wire.Hello.Protocol) and a host refuses another of (wire.WelcomeRefused).
const Protocol = wire.AuthProtocol

// checkedEvery is how many states apart a host sends a state's checksum
// (and the client's input acknowledgement): states of a frame that is a
// multiple of checkedEvery state intervals, and every full state. A
// client verifies each such state, and through it the chain of baselines
// it was coded against; a state it took unverified and that turns out
// wrong is found at the next (checkedEvery states later, at 60 Hz and one
// state a tick about 133 ms) and dropped with the states coded against it.
const checkedEvery = 8

// quality is the authoritative mode's default NetConfig.QualityInterval:
// its round trips only inform the statistics (a client's lead comes from
// the Hello's), so a report a second, not five.
const quality = time.Second

// resolveNet is link.Resolve with the authoritative mode's defaults.
func resolveNet(c rollnet.NetConfig) (link.Settings, error) {
	if c.Tuning.QualityInterval == 0 {
		c.Tuning.QualityInterval = quality
	}
	return link.Resolve(c)
}

// maxState is the largest state, in bytes, a host sends: a body of it,
// however incompressible, fits wire.MaxStateBody.
const maxState = 64 << 10

// checkTypes checks S and I can travel: pointer-free, gap-free,
// fixed-width (rollback.CheckType), S at most maxState bytes, I at most
// wire.MaxInputSize bytes and without bools (a byte from the network
// other than 0 or 1 would not be a Go bool).
func checkTypes[S any, I comparable]() (stateSize, inputSize int, err error) {
	ts, ti := reflect.TypeFor[S](), reflect.TypeFor[I]()
	if err := rollback.CheckType(ts); err != nil {
		return 0, 0, fmt.Errorf("%w: state type: %w", errConfig, err)
	}
	if err := rollback.CheckType(ti); err != nil {
		return 0, 0, fmt.Errorf("%w: input type: %w", errConfig, err)
	}
	switch {
	case ts.Size() == 0 || ts.Size() > maxState:
		return 0, 0, fmt.Errorf("%w: state type %s is %d bytes, want 1..%d", errConfig, ts, ts.Size(), maxState)
	case ti.Size() == 0 || ti.Size() > 32:
		return 0, 0, fmt.Errorf("%w: input type %s is %d bytes, want 1..32", errConfig, ti, ti.Size())
	case holdsBool(ti):
		return 0, 0, fmt.Errorf("%w: input type %s holds a bool; use a uint8", errConfig, ti)
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
// game's own settings. A Hello with another hash is refused with the
// host's (wire.WelcomeRefused).
func settingsHash(s wire.AuthSettings) uint64 {
	return link.SettingsHash(uint64(s.Protocol), uint64(s.Players), uint64(s.StateSize), uint64(s.InputSize), uint64(s.FrameRate), s.Game)
}

func authSettings(players, stateSize, inputSize int, n *link.Settings) wire.AuthSettings {
	return wire.AuthSettings{Protocol: protocol, Players: players, StateSize: stateSize, InputSize: inputSize, FrameRate: n.FrameRate, Game: n.Game}
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

// A client's rejoin token is rollnet.RejoinToken's Secret (its Match is
// 0): random 128 bits a host gives each client with its slots, valid while
// the client is connected and for the host's grace window after.
var _ [wire.TokenLen]byte = rollnet.RejoinToken{}.Secret
