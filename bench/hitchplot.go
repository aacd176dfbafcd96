package main

import (
	"bytes"
	"fmt"
	"math"
	"os"

	"github.com/rollnet/rollnet/internal/hitch"
)

// writeHitchPlot runs the playout hitch scenario (45 ± 20 ms, 5% loss, a
// 60 Hz step drawn at 144 Hz) paced and on arrival, and writes an SVG of
// the host entity's drawn displacement per frame, as a multiple of its
// typical travel, one panel each, the no-hitch band [0.5, 1.5] shaded.
func writeHitchPlot(path string) error {
	var runs [2]hitch.Result
	for i, unpaced := range []bool{false, true} {
		r, err := hitch.Run(hitch.Config{Seed: 1, Unpaced: unpaced})
		if err != nil {
			return err
		}
		runs[i] = r
	}
	svg := hitchSVG(runs[0].Views[hitch.Remote], runs[1].Views[hitch.Remote])
	if err := os.WriteFile(path, svg, 0o644); err != nil {
		return err
	}
	fmt.Printf("%s: %s, %d drawn frames: paced %d hitches, on arrival %d\n", path,
		runs[0].Views[hitch.Remote].Name, len(runs[0].Views[hitch.Remote].Moves),
		runs[0].Views[hitch.Remote].Hitches, runs[1].Views[hitch.Remote].Hitches)
	return nil
}

// hitchSVG draws the two views as stacked panels on one y scale.
func hitchSVG(paced, arrival hitch.View) []byte {
	const (
		w, panelH, left, right, top, gap = 960.0, 220.0, 56.0, 16.0, 76.0, 56.0
		yMax                             = 3.0 // displacement ratios above are clipped
	)
	h := top + 2*panelH + gap + 36
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="12">`+"\n", w, h, w, h)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%.0f" y="22" font-size="15">Drawn displacement per frame of a host entity on the client, × its typical travel</text>`+"\n", left)
	fmt.Fprintf(&b, `<text x="%.0f" y="40">45 ± 20 ms one way, 5%% loss, 60 Hz step, 144 Hz draw, packets delivered between update and draw</text>`+"\n", left)
	for i, v := range []hitch.View{paced, arrival} {
		y0 := top + float64(i)*(panelH+gap)
		title := [2]string{"paced (pacing.Queue + pacing.Clock)", "applied on arrival, drawn at the local alpha"}[i]
		color := [2]string{"#1f77b4", "#d62728"}[i]
		n := len(v.Moves)
		px := func(k int) float64 { return left + (w-left-right)*float64(k)/float64(max(n-1, 1)) }
		py := func(r float64) float64 { return y0 + panelH*(1-math.Min(r, yMax)/yMax) }
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" font-size="13">%s: %d hitches in %d frames</text>`+"\n", left, y0-8, title, v.Hitches, n)
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.1f" width="%.0f" height="%.1f" fill="#e8f4e8"/>`+"\n", left, py(1.5), w-left-right, py(0.5)-py(1.5))
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="none" stroke="#888"/>`+"\n", left, y0, w-left-right, panelH)
		for _, r := range []float64{0, 0.5, 1, 1.5, 2, 3} {
			fmt.Fprintf(&b, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#ccc" stroke-width="0.5"/>`+"\n", left, w-right, py(r), py(r))
			fmt.Fprintf(&b, `<text x="%.0f" y="%.1f" text-anchor="end">%g×</text>`+"\n", left-6, py(r)+4, r)
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1" points="`, color)
		for k, m := range v.Moves {
			r := 0.0
			if v.Typical > 0 {
				r = m / v.Typical
			}
			fmt.Fprintf(&b, "%.1f,%.1f ", px(k), py(r))
		}
		b.WriteString("\"/>\n")
		for k, m := range v.Moves { // mark the hitches, clipped ones at the top
			if r := m / v.Typical; v.Typical > 0 && (r < 0.5 || r > 1.5) {
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="1.8" fill="%s"/>`+"\n", px(k), py(r), color)
			}
		}
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f">drawn frame →   (shaded: within 0.5×–1.5× of the typical travel; a dot is a hitch; above 3× is drawn at 3×)</text>`+"\n", left, h-12)
	b.WriteString("</svg>\n")
	return b.Bytes()
}
