package main

import (
	"bytes"
	"runtime"
	"strings"
	"testing"

	"github.com/rollnet/rollnet/internal/shipenv"
	"github.com/stretchr/testify/require"
)

// The command over two games (its analyzer without the compiler, no
// replays on other architectures: the sync test is what the second fails;
// one run, since loading the packages is most of its time): steady agrees;
// drift's state depends on a package-level counter from frame 30, and the
// verdict names the frame, the field, both values and the analyzer's
// finding on the line that writes the field.
func TestVerdict(t *testing.T) {
	var out bytes.Buffer
	code := run([]string{"-no-compiler", "-arch=", "./testdata/steady", "./testdata/drift"}, &out, &out)
	t.Log(out.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	last := lines[len(lines)-1]
	require.Equal(t, 1, code)
	require.Contains(t, out.String(), "rollnet-check: steady: sync test on "+runtime.GOOS+"/"+runtime.GOARCH+": 600 frames agreed (random inputs, seed 1)\n")
	require.Contains(t, last, "rollnet-check: differs: drift: sync test on ")
	require.Contains(t, last, ": frame 30 differs first, at State.Heat: 1 first, 2 re-simulated; ")
	require.Regexp(t, `rollnet-vet explains it: testdata/drift/drift.go:20:\d+: .*warmth`, last)
}

// Every result agreed and the analyzer found nothing: the verdict is
// agreed, with what was checked.
func TestVerdictAgreed(t *testing.T) {
	c := &check{frames: 600, seed: 1, analyzed: 3, games: []game{{path: "example.com/pong", dir: "/pong"}}}
	results := []shipenv.Result{
		{Game: "pong", Dir: "/pong", Step: shipenv.StepSync, Arch: "linux/amd64", Agreed: true, Frames: 600},
		{Game: "pong", Dir: "/pong", Step: shipenv.StepReplay, Arch: "linux/386", Agreed: true, Frames: 600},
	}
	verdict, ok := c.verdict(results, []string{"386"}, []string{"riscv64 (no qemu)"})
	require.True(t, ok)
	require.Equal(t, "agreed: rollnet-vet found nothing in 3 packages; pong: 600-frame sync tests with random inputs (seed 1) on "+
		runtime.GOOS+"/"+runtime.GOARCH+", replays agreed on 386; not replayed on riscv64 (no qemu)", verdict)

	c.findings = []finding{{message: "range over map"}}
	verdict, ok = c.verdict(results, []string{"386"}, nil)
	require.False(t, ok, "a finding is no agreement")
	require.Contains(t, verdict, "findings: rollnet-vet reports 1 (above; first: ")
}
