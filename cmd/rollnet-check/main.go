// Command rollnet-check gives one verdict on a game before it ships. In
// one run it does three things over the packages it is given:
//
//   - rollnet-vet's analyzer (package simvet) over every package;
//   - in each package whose TestShipCheck calls shipcheck.Run, a sync test
//     of -frames frames with random inputs (every frame simulated again
//     after a rollback must give the same state), recording the match on
//     this machine;
//   - the recording replayed by the same test built for 386 (natively on
//     amd64), arm64 and riscv64 (under qemu-user-static: through
//     binfmt_misc when it is registered, else with qemu-aarch64-static or
//     qemu-riscv64-static on PATH; skipped, with a line that says so,
//     without them).
//
// Its last line is the verdict: "rollnet-check: agreed: ..." with what was
// checked, or the first frame and state field that differ with the
// analyzer's finding that explains it. The exit status is 0 only for
// agreed.
//
// From the game's module:
//
//	go run github.com/rollnet/rollnet/cmd/rollnet-check ./...
//
// See package shipcheck for the test that registers a game.
package main

import (
	"os"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }
