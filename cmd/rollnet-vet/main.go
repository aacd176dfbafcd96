// Command rollnet-vet reports code that can make a rollback simulation
// non-deterministic: map ranges, the wall clock, global random numbers,
// goroutines and channels, float multiply-adds Go may fuse (by the source
// and by the compiler's own arm64 and riscv64 output), package-level
// state, unsafe and reflect, and state types the ring would refuse. It
// finds the simulation functions itself (see package simvet).
//
// Run it over a module:
//
//	go run github.com/rollnet/rollnet/cmd/rollnet-vet ./...
//
// or as a vet tool:
//
//	go install github.com/rollnet/rollnet/cmd/rollnet-vet
//	go vet -vettool=$(which rollnet-vet) ./...
//
// Each finding is printed as file:line:col: message, and the exit status
// is non-zero when there is one. A finding that is intended is silenced
// with a //rollnet:ok comment that gives a reason, on its line, the line
// above it, or the doc comment of the function that holds it.
package main

import (
	"golang.org/x/tools/go/analysis/singlechecker"

	"github.com/rollnet/rollnet/internal/simvet"
)

// singlechecker.Main is both drivers: given packages it loads them itself
// (go/packages), given go vet's single *.cfg argument it is unitchecker.
func main() { singlechecker.Main(simvet.Analyzer) }
