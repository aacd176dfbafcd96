package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// printMarkdown prints the README's "Latest measurements" table (the
// rows of readmeRows) from the JSON report at path.
func printMarkdown(w io.Writer, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	byName := map[string]rowResult{}
	for _, r := range rep.Rows {
		byName[r.Name] = r
	}
	peak := 0.0
	for _, l := range rep.Load {
		peak = max(peak, l[0])
	}
	date, _, _ := strings.Cut(rep.Date, "T")
	fmt.Fprintf(w, "`%s` (%s, commit %s, %s, %d CPUs: %s; %d passes of %s a benchmark,\n",
		rep.Command, date, rep.Commit, rep.GoVersion, rep.CPUs, rep.CPU, rep.Passes, rep.Benchtime)
	first, last := loadAvg{}, loadAvg{}
	if len(rep.Load) > 0 {
		first, last = rep.Load[0], rep.Load[len(rep.Load)-1]
	}
	fmt.Fprintf(w, "load average %s at the start, %s at the end, 1-minute peak %.1f; %s in all). Each row's\n", first, last, peak, rep.Elapsed)
	fmt.Fprintf(w, "minimum over the passes, its median in brackets; the ratio is of the minimums, the median of\n")
	fmt.Fprintf(w, "the per-pass ratios in brackets. Every row and its provenance are in `bench/latest.json`.\n\n")
	fmt.Fprintln(w, "| path | rollnet | baseline in the same passes | ratio | allocs/op |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, name := range readmeRows {
		r, ok := byName[name]
		if !ok {
			return fmt.Errorf("%s has no row %q", path, name)
		}
		fig := func(f figure) string {
			if f.Min < 0 {
				return "not measured"
			}
			return fmt.Sprintf("%s (%s)", formatFigure(f.Min, f.Unit), formatFigure(f.Median, f.Unit))
		}
		base, ratio := "none: "+r.NoBase, ""
		if r.Baseline != nil {
			base = r.BaseName + ": " + fig(*r.Baseline)
			ratio = fmt.Sprintf("%s (%s)", formatRatio(r.RatioOfMins), formatRatio(r.MedianRatio))
		}
		if r.Error != "" {
			base, ratio = "not measured: "+r.Error, ""
		}
		fmt.Fprintf(w, "| %s (%s) | %s | %s | %s | %.0f |\n", r.Name, r.Group, fig(r.Subject), base, ratio, r.Subject.AllocsPerOp)
	}
	printProfileMarkdown(w, byName)
	for _, c := range rep.CatchUp {
		printCatchMarkdown(w, c)
	}
	return printTransportsMarkdown(w, &rep)
}

// printProfileMarkdown prints the P2P profile rows as one table, a link a
// line (minimums over the passes: the figures are on a fake clock, so the
// passes agree).
func printProfileMarkdown(w io.Writer, byName map[string]rowResult) {
	fmt.Fprintln(w, "\nThe P2P session over the local network at 60 fps, on a fake clock, two players whose inputs")
	fmt.Fprintln(w, "change every 10 frames or so (`BenchmarkP2PProfile` in `bench/`):")
	fmt.Fprintln(w, "\n| link, each way | rollbacks/s | deepest | frames ahead of confirmed | bytes/s per peer | checksums agree |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, l := range profileLinks {
		n := "P2P " + l[1] + ": "
		v := func(what string) string {
			r, ok := byName[n+what]
			if !ok || r.Subject.Min < 0 {
				return "not measured"
			}
			return formatFigure(r.Subject.Min, r.Subject.Unit)
		}
		agree := "no"
		if r, ok := byName[n+"checksums agree"]; ok && r.Subject.Min == 1 {
			agree = "yes"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", l[2], v("rollbacks a second"), v("deepest rollback"), v("frames ahead"), v("bytes/s a peer"), agree)
	}
}

// printCatchMarkdown prints a catch-up run as the README's table.
func printCatchMarkdown(w io.Writer, c catchReport) {
	fmt.Fprintf(w, "\nCatching up on %s frames of a 2-player match over real WebRTC on loopback (SendThreshold %d, 0: the\n",
		groupDigits(c.Config.Frames), c.Config.SendThreshold)
	fmt.Fprintf(w, "default; the players played them in %s, then at 60 Hz):\n\n", dur(c.Played))
	fmt.Fprintln(w, "| late peer | replayed | live after | feeding player's tick p50, p99: before → during | its ticks refused | checksums agree |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, f := range c.Figures {
		agreed := fmt.Sprintf("all %s compared of the %s it replayed", groupDigits(f.Compared), groupDigits(f.Frames))
		live := dur(f.Live)
		if f.Kind == "rejoiner" {
			agreed = fmt.Sprintf("the %s compared from R on", groupDigits(f.Compared))
			live += fmt.Sprintf(" (at R %s)", groupDigits(f.R))
		}
		fmt.Fprintf(w, "| %s | %s frames in %s (%s frames/s) | %s | %s → %s, %s → %s | %d | %s |\n",
			f.Kind, groupDigits(f.Frames), dur(f.Replayed), formatNumber(f.Rate), live,
			dur(f.Quiet.P50), dur(f.Busy.P50), dur(f.Quiet.P99), dur(f.Busy.P99), f.Busy.Refused, agreed)
	}
	switch {
	case c.Disagree != "":
		fmt.Fprintf(w, "\nThe check FAILED: %s\n", c.Disagree)
	case c.Incomplete != "":
		fmt.Fprintf(w, "\nIncomplete (reported, not a failure): %s\n", c.Incomplete)
	}
}
