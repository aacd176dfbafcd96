package shipenv

import "fmt"

// Result is one step of a check of one game, as shipcheck.Run writes it
// (JSON) for cmd/rollnet-check, which reads it back.
type Result struct {
	Game    string // shipcheck.Game.Name
	Dir     string // the directory of the game's package
	Step    string // "sync test" (which also records the match) or "replay" (the recording replayed by this build)
	Arch    string // GOOS/GOARCH of the build that ran it
	Frames  int    // frames simulated (sync test) or whose checksums agreed (replay)
	Seed    uint64 // the random inputs' seed (sync test)
	Players int
	// Agreed is true when every frame agreed. Else, unless Err says the
	// step could not run, Frame is the first frame after which the states
	// differ (-1: the initial state), Field the first field that differs
	// (a path such as "World.Tanks[1].X"), Want and Got its value first
	// (the sync test's first simulation, the recording) and again (the
	// re-simulation, this build), and Differ how many fields differ.
	Agreed    bool
	Frame     int64
	Field     string
	Want, Got string
	Differ    int
	Err       string
}

// Summary is the result in one line: "pong: replay on linux/arm64: frame
// 12 differs first, at State.Ball.VX: 3 recorded, 4 replayed (2 other
// fields differ)".
func (r Result) Summary() string {
	head := fmt.Sprintf("%s: %s on %s", r.Game, r.Step, r.Arch)
	switch {
	case r.Err != "":
		return fmt.Sprintf("%s: could not run: %s", head, r.Err)
	case r.Agreed && r.Step == StepSync:
		return fmt.Sprintf("%s: %d frames agreed (random inputs, seed %d)", head, r.Frames, r.Seed)
	case r.Agreed:
		return fmt.Sprintf("%s: %d frames agreed", head, r.Frames)
	}
	first, again := "first", "re-simulated"
	if r.Step == StepReplay {
		first, again = "recorded", "replayed"
	}
	where := fmt.Sprintf("frame %d differs first", r.Frame)
	if r.Frame < 0 {
		where = "the initial state differs"
		again = "built here"
	}
	s := fmt.Sprintf("%s: %s, at %s: %s %s, %s %s", head, where, r.Field, r.Want, first, r.Got, again)
	switch {
	case r.Differ == 2:
		s += " (1 other field differs)"
	case r.Differ > 2:
		s += fmt.Sprintf(" (%d other fields differ)", r.Differ-1)
	}
	return s
}
