//go:build !js

package main

import (
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// TestMain removes the game built for the tests, and fails on a
// goroutine left running.
func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

const frames = 600

// TestTwoWindows plays two native processes, each in its own window on its
// own X server, 600 frames over WebRTC on loopback: they agree on every
// checksum both confirmed, and each window shows both tanks where that
// process's state puts them.
func TestTwoWindows(t *testing.T) {
	signal := startSignal(t)
	displays := [2]string{startX(t), startX(t)}
	var games [2]*game
	for i, name := range []string{"ann", "bob"} {
		games[i] = play(t, displays[i], "-signal", signal, "-room", "windows", "-name", name,
			"-bot", "-frames", strconv.Itoa(frames), "-hold", "60s")
	}
	var reports [2]Report
	for i, g := range games {
		reports[i] = g.wait(t, 60*time.Second)
		require.EqualValues(t, frames, reports[i].Frame)
	}
	n := agree(t, reports[0], reports[1], frames/2)
	t.Logf("%d frames compared; first shared frame %.0f ms and %.0f ms after launch", n, reports[0].FirstShared, reports[1].FirstShared)
	for i, d := range displays {
		img := screenshot(t, d)
		if dir := os.Getenv("TANKS_SHOTS"); dir != "" {
			f, err := os.Create(filepath.Join(dir, "window"+strconv.Itoa(i)+".png"))
			require.NoError(t, err)
			require.NoError(t, png.Encode(f, img))
			require.NoError(t, f.Close())
		}
		checkScreen(t, img, reports[i])
	}
}
