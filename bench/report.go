package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// The printed table's columns, in characters; a line is at most
// maxWidth.
const (
	maxWidth  = 120
	nameWidth = 34 // a row's Name
	figWidth  = 9  // one figure: "35.8 kB/s", "1.09 ms"
	baseWidth = 18 // a row's BaseName
	ratWidth  = 6  // "38.55x"
	// noteWidth is the span of the baseline's columns and the ratios,
	// where a row without a baseline says why.
	noteWidth = baseWidth + 1 + figWidth + 1 + figWidth + 2 + ratWidth + 1 + ratWidth
)

// Report is the JSON the command writes: the results and where they came
// from.
type Report struct {
	Date      string      `json:"date"`
	Commit    string      `json:"commit"`
	GoVersion string      `json:"go_version"`
	OS        string      `json:"os"`
	Arch      string      `json:"arch"`
	CPU       string      `json:"cpu"`
	CPUs      int         `json:"cpus"`
	Command   string      `json:"command"`
	Passes    int         `json:"passes"`    // passes run
	Benchtime string      `json:"benchtime"` // each benchmark's time a pass
	Bound     string      `json:"bound"`     // the whole command's time bound
	Elapsed   string      `json:"elapsed"`   // what it took
	Build     string      `json:"build"`     // compiling the packages' tests
	Load      []loadAvg   `json:"load_average"`
	Rows      []rowResult `json:"rows"`
	// Unlisted are benchmarks of the packages measured that no row of
	// bench/rows.go names.
	Unlisted []string `json:"unlisted,omitempty"`
	// CatchUp is the catch-up runs over loopback WebRTC (-catchup), one
	// for each -catchup-sendthreshold.
	CatchUp []catchReport `json:"catchup,omitempty"`
	// Transports is QUIC beside WebRTC on loopback (-transports): bytes
	// on the wire per input datagram, connect times, host CPU per client.
	Transports any `json:"transports,omitempty"` // a transportfigures.Figures (native builds only)
	// TransportsIncomplete says why the transport figures are missing.
	TransportsIncomplete string `json:"transports_incomplete,omitempty"`
	// Fleet is a local fleet's request-to-first-state figure (-fleet): a
	// FleetFigures (native builds only).
	Fleet any `json:"fleet,omitempty"`
	// FleetIncomplete says why it is missing.
	FleetIncomplete string `json:"fleet_incomplete,omitempty"`
}

func printHeader(w io.Writer, rep *Report) {
	fmt.Fprintf(w, "rollnet benchmarks, %s, %s %s/%s, %d CPUs, commit %s\n", rep.Date, rep.GoVersion, rep.OS, rep.Arch, rep.CPUs, rep.Commit)
	fmt.Fprintf(w, "cpu: %s\n", rep.CPU)
}

func printRows(w io.Writer, rep *Report) {
	first, lastLoad := loadAvg{}, loadAvg{}
	if len(rep.Load) > 0 {
		first, lastLoad = rep.Load[0], rep.Load[len(rep.Load)-1]
	}
	peak := 0.0
	for _, l := range rep.Load {
		peak = max(peak, l[0])
	}
	fmt.Fprintf(w, "%d passes of %s a benchmark, each row's benchmark next to its baseline, the order reversed every\n", rep.Passes, rep.Benchtime)
	fmt.Fprintf(w, "other pass; load average %s at the start, %s at the end (1-minute peak %.2f)\n\n", first, lastLoad, peak)
	fmt.Fprintf(w, "%-*s  %*s %*s  %-*s %*s %*s  %*s %*s  %s\n", nameWidth+2, "", figWidth, "rollnet", figWidth, "",
		baseWidth, "baseline", figWidth, "", figWidth, "", ratWidth, "ratio", ratWidth, "median", "allocs")
	fmt.Fprintf(w, "%-*s  %*s %*s  %-*s %*s %*s  %*s %*s  %s\n", nameWidth+2, "", figWidth, "min", figWidth, "median",
		baseWidth, "(same passes)", figWidth, "min", figWidth, "median", ratWidth, "of min", ratWidth, "ratio", "/op")
	group := ""
	for _, r := range rep.Rows {
		if r.Group != group {
			group = r.Group
			fmt.Fprintln(w, group)
		}
		printRow(w, r)
	}
	if len(rep.Unlisted) > 0 {
		fmt.Fprintln(w)
		for _, line := range wrap("in no row of bench/rows.go (add one): "+strings.Join(rep.Unlisted, ", "), maxWidth) {
			fmt.Fprintln(w, line)
		}
	}
}

func printRow(w io.Writer, r rowResult) {
	unit := r.Subject.Unit
	fig := func(v float64, unit string) string {
		if v < 0 {
			return "-"
		}
		return formatFigure(v, unit)
	}
	allocs := "-"
	if r.Subject.Min >= 0 {
		allocs = fmt.Sprintf("%.0f", r.Subject.AllocsPerOp)
	}
	left := fmt.Sprintf("  %-*s  %*s %*s  ", nameWidth, r.Name, figWidth, fig(r.Subject.Min, unit), figWidth, fig(r.Subject.Median, unit))
	var note string
	switch {
	case r.Error != "":
		note = "not measured: " + r.Error
	case r.Baseline == nil:
		note = "no baseline: " + r.NoBase
	}
	if note == "" {
		b := r.Baseline
		fmt.Fprintf(w, "%s%-*s %*s %*s  %*s %*s  %s\n", left, baseWidth, r.BaseName,
			figWidth, fig(b.Min, b.Unit), figWidth, fig(b.Median, b.Unit),
			ratWidth, formatRatio(r.RatioOfMins), ratWidth, formatRatio(r.MedianRatio), allocs)
		return
	}
	lines := wrap(note, noteWidth)
	fmt.Fprintf(w, "%s%-*s  %s\n", left, noteWidth, lines[0], allocs)
	for _, l := range lines[1:] {
		fmt.Fprintf(w, "%*s%s\n", len(left), "", l)
	}
}

// wrap breaks s into lines of at most width, at spaces (a word longer
// than width stands alone).
func wrap(s string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case len(line)+1+len(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return append(lines, line)
}

func printCatchReport(w io.Writer, rep catchReport) {
	c := rep.Config
	th := "the transport's default"
	if c.SendThreshold > 0 {
		th = formatBytes(float64(c.SendThreshold))
	}
	fmt.Fprintf(w, "catch-up over loopback WebRTC: %s frames of a 2-player match played at %d ticks/s in %v, then at 60 Hz\n",
		groupDigits(c.Frames), c.FastRate, rep.Played.Round(time.Millisecond))
	fmt.Fprintf(w, "  spectator CatchUp %d, FastForward %d (0: the defaults), SendThreshold %s\n", c.CatchUp, c.FastForward, th)
	for _, f := range rep.Figures {
		r := ""
		if f.R > 0 {
			r = fmt.Sprintf(", R %s", groupDigits(f.R))
		}
		fmt.Fprintf(w, "  %s: %s frames%s; connected in %s, replayed in %s (%s frames/s), live after %s\n",
			f.Kind, groupDigits(f.Frames), r, dur(f.Connect), dur(f.Replayed), formatNumber(f.Rate), dur(f.Live))
		fmt.Fprintf(w, "    feeding player's tick p50 %s -> %s (%s), p99 %s -> %s (%s), ticks refused %d / %d\n",
			dur(f.Quiet.P50), dur(f.Busy.P50), formatRatio(ratio(f.Busy.P50, f.Quiet.P50)),
			dur(f.Quiet.P99), dur(f.Busy.P99), formatRatio(ratio(f.Busy.P99, f.Quiet.P99)), f.Quiet.Refused, f.Busy.Refused)
		fmt.Fprintf(w, "    checksums: %s compared%s, all agree; the feeder sent %s datagrams, %s skipped\n",
			groupDigits(f.Compared), f.coverage(), groupDigits(int(f.Sent)), groupDigits(int(f.Skipped)))
	}
	switch {
	case rep.Disagree != "":
		fmt.Fprintf(w, "  check: FAIL: %s\n", rep.Disagree)
	case rep.Incomplete != "":
		for i, l := range wrap("check: pass (every checksum compared agrees); incomplete, not a failure: "+rep.Incomplete, maxWidth-2) {
			fmt.Fprintf(w, "%*s%s\n", 2+2*min(i, 1), "", l)
		}
	default:
		fmt.Fprintln(w, "  check: pass (every checksum compared agrees)")
	}
}

// dur prints a duration as formatTime does.
func dur(d time.Duration) string { return formatTime(float64(d)) }

// groupDigits prints n with thousands separators: 36,000.
func groupDigits(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
