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
	return nil
}
