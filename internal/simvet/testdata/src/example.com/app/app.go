// Package app runs lib's rules: what lib's functions reach is reported at
// the reference here, with the place in lib.
package app

import (
	"example.com/lib"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/session"
)

func Run() { // want Run:"hazards 5"
	_, _ = session.NewSyncTest[lib.State, uint8](session.Config[uint8]{}, func(s *lib.State, in []uint8, f rollnet.Frame) {
		lib.Tick(s, in, int32(f)) // want `lib/lib.go:11:12: range over map` `lib/lib.go:13:2: write to package-level variable Frames` `lib/lib.go:14:8: Mul returns an unconverted float product`
		lib.Clean(s, in, int32(f))
		s.Y = lib.Mul(s.X, 2) - s.Y // want `Mul returns an unconverted float product`
		_ = lib.Frames              // want `read of package-level variable lib.Frames, which is written outside init`
	})
}
