// Package shipcheck checks a game's simulation before it ships: a sync
// test of many frames with random inputs (every frame simulated again
// after a rollback must give the same state), a recording of that match,
// and the recording replayed by builds for other architectures, where the
// first frame and state field that differ are named.
//
// A game registers its simulation with one test in the package that holds
// it, named TestShipCheck (the command runs only tests whose names start
// so):
//
//	func TestShipCheck(t *testing.T) {
//		shipcheck.Run(t, shipcheck.Game[State, Input]{
//			Name:     "pong",
//			Players:  2,
//			Initial:  NewState(7),
//			Simulate: Simulate,
//		})
//	}
//
// Then, from the game's module, one command gives one verdict:
//
//	go run github.com/rollnet/rollnet/cmd/rollnet-check ./...
//
// It runs rollnet-vet's analyzer over the packages, this test for the
// sync test and the recording, and the test again built for 386 (natively
// on amd64), arm64 and riscv64 (under qemu-user-static, when installed) to
// replay the recording, and ends in one line: "agreed" with what was
// checked, or the first frame and field that differ with the analyzer's
// finding that explains it (see cmd/rollnet-check).
//
// Run as a plain test (go test), Run does the sync test, records the
// match and replays it in the same process, and fails the test with the
// same one-line verdict when they disagree; it takes about as long as
// simulating Frames frames four times.
//
// The simulation must build for the other architectures: keep it in a
// package that does not import the game's engine (a cgo package, such as
// Ebitengine on Linux, does not cross-compile), as the pong demo keeps it
// in internal/ponggame and the tanks example in ebiten/examples/tanks/world.
package shipcheck
