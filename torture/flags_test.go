package torture

import "flag"

// Flags shared by every torture tier. The defaults keep the whole suite
// inside the CI budget under -race; a soak run raises them, e.g.
//
//	go test -race -timeout 0 ./torture/ -torture.scale 100 -torture.seed 7
var (
	scaleFlag = flag.Int("torture.scale", 1,
		"multiply every torture tier's operation, frame and seed counts by this factor (soak runs)")
	seedFlag = flag.Uint64("torture.seed", 1,
		"base seed of the torture tiers' random streams; a failure prints the seed that reproduces it")
)

// scaled returns n multiplied by -torture.scale (at least n when the flag is
// below 1).
func scaled(n int) int {
	if s := *scaleFlag; s > 1 {
		return n * s
	}
	return n
}

// baseSeed returns -torture.seed.
func baseSeed() uint64 { return *seedFlag }
