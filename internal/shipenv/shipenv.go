// Package shipenv names the environment cmd/rollnet-check sets for the
// tests it runs, which shipcheck.Run reads. Without Dir, Run checks in one
// process.
package shipenv

const (
	Dir    = "ROLLNET_SHIPCHECK_DIR"    // where recordings and results are kept
	Step   = "ROLLNET_SHIPCHECK_STEP"   // StepSync (record) or StepReplay
	Frames = "ROLLNET_SHIPCHECK_FRAMES" // replaces Game.Frames
	Seed   = "ROLLNET_SHIPCHECK_SEED"   // the random inputs' seed; 1 if unset
)

// The steps of a check, as Result.Step names them.
const (
	StepSync   = "sync test" // the sync test, which also records the match
	StepReplay = "replay"    // the recording replayed by this build
)
