//go:build !js

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/signaling"
)

// The tests run the game as a person would: real processes, real windows
// on an X server (Xvfb, what xvfb-run starts), WebRTC on loopback through
// a signaling server on 127.0.0.1, and screenshots taken from the X
// server, outside the game.

// need returns the path of a program the tests need, or skips (fails
// under CI=true: .ci/run installs it).
func need(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("CI=true and no %s: .ci/run installs %s", name, pkg)
	}
	t.Skipf("no %s on PATH: apt-get install -y %s to run the window tests", name, pkg)
	return ""
}

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
	buildDir  string
)

// tanks builds the game once per test process.
func tanks(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "tanks-test-")
		if buildErr != nil {
			return
		}
		binary = filepath.Join(buildDir, "tanks")
		out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	require.NoError(t, buildErr)
	return binary
}

// startSignal runs a signaling server on 127.0.0.1 for t, letting
// browsers of origins in.
func startSignal(t *testing.T, origins ...string) string {
	t.Helper()
	srv, err := signaling.NewServer(signaling.ServerConfig{OriginPatterns: origins})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	return "ws://" + ln.Addr().String()
}

// startX starts an X server (Xvfb) of the window's size for t and
// returns its display (":N").
func startX(t *testing.T) string {
	t.Helper()
	exe := need(t, "Xvfb", "xvfb")
	r, w, err := os.Pipe()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-displayfd", "3", "-screen", "0", "640x480x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	require.NoError(t, cmd.Start())
	_ = w.Close()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		got <- strings.TrimSpace(line)
		_ = r.Close()
	}()
	select {
	case d := <-got:
		require.NotEmpty(t, d, "Xvfb gave no display number")
		return ":" + d
	case <-time.After(20 * time.Second):
		t.Fatal("Xvfb did not say its display within 20 s")
	}
	return ""
}

// game is one tanks process.
type game struct {
	cmd    *exec.Cmd
	report string
	out    *strings.Builder
}

// play starts tanks on display with args, its report written to a file
// of t's (read it with wait).
func play(t *testing.T, display string, args ...string) *game {
	t.Helper()
	g := &game{report: filepath.Join(t.TempDir(), "report.json"), out: &strings.Builder{}}
	g.cmd = exec.Command(tanks(t), append(args, "-report", g.report)...)
	g.cmd.Env = append(os.Environ(), "DISPLAY="+display)
	g.cmd.Stdout, g.cmd.Stderr = &lockedWriter{b: g.out}, &lockedWriter{b: g.out}
	require.NoError(t, g.cmd.Start())
	t.Cleanup(func() { _ = g.cmd.Process.Kill(); _ = g.cmd.Wait() })
	return g
}

type lockedWriter struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// wait waits (at most limit) for the process's report.
func (g *game) wait(t *testing.T, limit time.Duration) Report {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(g.report); err == nil && len(b) > 0 {
			var r Report
			require.NoError(t, json.Unmarshal(b, &r))
			return r
		}
		if g.cmd.ProcessState != nil {
			break
		}
		time.Sleep(50 * time.Millisecond) // polling a file another process writes
	}
	t.Fatalf("no report from %v within %v; its output:\n%s", g.cmd.Args, limit, g.cmd.Stdout.(*lockedWriter).String())
	return Report{}
}

// screenshot takes the game's window from the X server at display: what
// a person at that screen sees.
func screenshot(t *testing.T, display string) *image.RGBA {
	t.Helper()
	c, err := xgb.NewConnDisplay(display)
	require.NoError(t, err, "connecting to the X server %s", display)
	defer c.Close()
	root := xproto.Setup(c).DefaultScreen(c).Root
	tree, err := xproto.QueryTree(c, root).Reply()
	require.NoError(t, err)
	for _, w := range tree.Children {
		attr, err := xproto.GetWindowAttributes(c, w).Reply()
		if err != nil || attr.MapState != xproto.MapStateViewable {
			continue
		}
		geo, err := xproto.GetGeometry(c, xproto.Drawable(w)).Reply()
		if err != nil || geo.Width < 100 {
			continue
		}
		pos, err := xproto.TranslateCoordinates(c, w, root, 0, 0).Reply()
		require.NoError(t, err)
		img, err := xproto.GetImage(c, xproto.ImageFormatZPixmap, xproto.Drawable(root),
			pos.DstX, pos.DstY, geo.Width, geo.Height, 0xffffffff).Reply()
		require.NoError(t, err)
		out := image.NewRGBA(image.Rect(0, 0, int(geo.Width), int(geo.Height)))
		for i := 0; i+3 < len(img.Data) && i < len(out.Pix); i += 4 { // BGRX
			out.Pix[i], out.Pix[i+1], out.Pix[i+2], out.Pix[i+3] = img.Data[i+2], img.Data[i+1], img.Data[i], 0xff
		}
		return out
	}
	t.Fatalf("no window on the X server %s", display)
	return nil
}

// checkScreen checks a screenshot against the report: not blank (the
// arena's background, the score bar and more colors), the network graph
// drawn, and each tank's color at the center the state gives.
func checkScreen(t *testing.T, img *image.RGBA, r Report) {
	t.Helper()
	scale := img.Bounds().Dx() / 320
	require.Positive(t, scale, "a window narrower than the game")
	colors := map[color.RGBA]int{}
	for i := 0; i < len(img.Pix); i += 4 {
		colors[color.RGBA{img.Pix[i], img.Pix[i+1], img.Pix[i+2], 0xff}]++
	}
	total := img.Bounds().Dx() * img.Bounds().Dy()
	require.Greater(t, len(colors), 4, "a blank window: %d colors", len(colors))
	require.Less(t, colors[Background], total*98/100, "the window is all background")
	require.Positive(t, colors[Background], "no arena background: not the game's window?")
	require.Positive(t, colors[Bar], "no score bar")
	require.Len(t, r.Tanks, 2)
	for i, tk := range r.Tanks {
		want := color.RGBA{tk.R, tk.G, tk.B, 0xff}
		cx, cy := int(tk.X*float64(scale)), int(tk.Y*float64(scale))
		hits := 0
		for dy := -2; dy <= 2; dy++ {
			for dx := -2; dx <= 2; dx++ {
				if near(img.RGBAAt(cx+dx, cy+dy), want) {
					hits++
				}
			}
		}
		require.GreaterOrEqual(t, hits, 20, "tank %d: the state puts it at (%.1f, %.1f) px, but the screen there (%d, %d) is %v, not its %v",
			i, tk.X, tk.Y, cx, cy, img.RGBAAt(cx, cy), want)
	}
}

func near(a, b color.RGBA) bool {
	d := func(x, y uint8) int {
		if x > y {
			return int(x - y)
		}
		return int(y - x)
	}
	return d(a.R, b.R) <= 8 && d(a.G, b.G) <= 8 && d(a.B, b.B) <= 8
}

// agree checks that two reports' checksums agree on every frame both
// compared, and that they compared at least min frames.
func agree(t *testing.T, a, b Report, least int) int {
	t.Helper()
	sums := map[uint32]uint32{}
	for _, s := range a.Sums {
		sums[s[0]] = s[1]
	}
	common := 0
	for _, s := range b.Sums {
		if want, ok := sums[s[0]]; ok {
			require.Equal(t, want, s[1], "the checksums of frame %d differ", s[0])
			common++
		}
	}
	require.GreaterOrEqual(t, common, least, "only %d frames compared", common)
	require.Empty(t, a.Desync)
	require.Empty(t, b.Desync)
	return common
}
