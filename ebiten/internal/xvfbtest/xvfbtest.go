// Package xvfbtest runs an example's window in a test, the way a person
// would start it: it builds the example's program, runs it on an X server
// (DISPLAY; xvfb-run -a provides one) within a time bound, reads the one
// report line it prints ("report " and JSON) and opens the screenshot it
// took. The examples' window tests (crowd, shooter) share it.
package xvfbtest

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Build builds the program in the test's directory (the example's) and
// returns its path. Without an X server it skips the test, or fails it
// under CI (CI set), where the tests run under xvfb-run -a.
func Build(t *testing.T, name string) string {
	t.Helper()
	if os.Getenv("DISPLAY") == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CI=true and no DISPLAY: run the tests under xvfb-run -a")
		}
		t.Skip("no DISPLAY: run under xvfb-run -a")
	}
	bin := filepath.Join(t.TempDir(), name)
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// Run runs bin with args and "-report - -shot PATH" within bound (it is
// killed past it, and the test fails), decodes its report line into
// report and returns the line and the screenshot's path.
func Run(t *testing.T, bin string, bound time.Duration, report any, args ...string) (line, shot string) {
	t.Helper()
	shot = filepath.Join(t.TempDir(), "shot.png")
	cmd := exec.Command(bin, append(args, "-report", "-", "-shot", shot)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		require.NoError(t, err, "stderr: %s", stderr.String())
	case <-time.After(bound):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("%s did not stop within %v; stderr: %s", filepath.Base(bin), bound, stderr.String())
	}
	line, ok := strings.CutPrefix(strings.TrimSpace(stdout.String()), "report ")
	require.True(t, ok, "stdout: %q", stdout.String())
	require.NoError(t, json.Unmarshal([]byte(line), report))
	return line, shot
}

// Screenshot decodes the PNG at path.
func Screenshot(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	return img
}
