package main

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// run builds the game once and plays it in a window on an X server
// (DISPLAY; xvfb-run -a provides one), the window's player a bot, for 600
// frames; it returns the report and the screenshot's path.
func run(t *testing.T, bin string, args ...string) (Report, string) {
	shot := filepath.Join(t.TempDir(), "shot.png")
	cmd := exec.Command(bin, append([]string{"-bot", "-frames", "600", "-report", "-", "-shot", shot}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		require.NoError(t, err, "stderr: %s", stderr.String())
	case <-time.After(90 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("shooter did not stop within 90 s; stderr: %s", stderr.String())
	}
	line, ok := strings.CutPrefix(strings.TrimSpace(stdout.String()), "report ")
	require.True(t, ok, "stdout: %q", stdout.String())
	var rep Report
	require.NoError(t, json.Unmarshal([]byte(line), &rep))
	t.Logf("report: %s", line)
	return rep, shot
}

// TestShooterWindow plays the game as a person would, with lag
// compensation and without: with it the host confirms the hits the
// window's player saw land; without it (the host judging its present)
// nearly none. The screenshot shows the four targets.
func TestShooterWindow(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CI=true and no DISPLAY: run the tests under xvfb-run -a")
		}
		t.Skip("no DISPLAY: run under xvfb-run -a")
	}
	bin := filepath.Join(t.TempDir(), "shooter")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)

	rep, shot := run(t, bin)
	require.True(t, rep.LagComp)
	require.Equal(t, 4, rep.Players)
	require.Greater(t, rep.Seen, int32(20))
	require.GreaterOrEqual(t, float64(rep.Confirmed), 0.9*float64(rep.Seen), "the hits seen, confirmed")

	f, err := os.Open(shot)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	require.Equal(t, Width, img.Bounds().Dx())
	red := 0
	for y := range Height {
		for x := range Width {
			r, g, b, _ := img.At(x, y).RGBA()
			if uint8(r>>8) == TargetRed.R && uint8(g>>8) == TargetRed.G && uint8(b>>8) == TargetRed.B {
				red++
			}
		}
	}
	require.Greater(t, red, Targets*300, "four targets drawn (about 450 pixels each)")

	off, _ := run(t, bin, "-lagcomp=false")
	require.False(t, off.LagComp)
	require.Greater(t, off.Seen, int32(20))
	require.Less(t, float64(off.Confirmed), 0.5*float64(off.Seen), "judged at the host's present, the hits seen miss")
}
