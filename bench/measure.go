package main

// Measuring the rows: each package's tests are compiled once, then the
// benchmarks run in passes, one process per benchmark, every row's
// benchmark next to its baseline, the order reversed every other pass (a
// subject runs before its baseline in odd passes and after it in even
// ones), so that a load that comes and goes falls on both sides of every
// ratio alike. Each pass gives one figure of each side; a row reports the
// minimum and the median of its passes, and the median of the ratios of
// each pass's pair.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// measureConfig bounds a measurement.
type measureConfig struct {
	Passes    int           // at most this many passes
	Benchtime time.Duration // each benchmark's -test.benchtime in a pass
	Deadline  time.Time     // no pass starts that would, by the last one's duration, end after it
	RunLimit  time.Duration // one benchmark process's limit
	Filter    *regexp.Regexp
	Log       io.Writer // progress, one line a pass
}

// figure is one side of a row, over the passes.
type figure struct {
	Unit    string    `json:"unit"`
	Samples []float64 `json:"samples"` // one a pass, in pass order
	Min     float64   `json:"min"`
	Median  float64   `json:"median"`
	// BPerOp and AllocsPerOp are the most any pass measured.
	BPerOp      float64 `json:"b_per_op"`
	AllocsPerOp float64 `json:"allocs_per_op"`
}

// rowResult is a row and what was measured of it.
type rowResult struct {
	Group    string  `json:"group"`
	Name     string  `json:"name"`
	Package  string  `json:"package"`
	Bench    string  `json:"benchmark"`
	Base     string  `json:"baseline,omitempty"`
	BaseName string  `json:"baseline_is,omitempty"`
	NoBase   string  `json:"no_baseline,omitempty"`
	Subject  figure  `json:"subject"`
	Baseline *figure `json:"baseline_figure,omitempty"`
	// RatioOfMins is Subject.Min / Baseline.Min; MedianRatio the median
	// of each pass's Subject / Baseline.
	RatioOfMins float64 `json:"ratio_of_mins,omitempty"`
	MedianRatio float64 `json:"median_ratio,omitempty"`
	// Error says why a figure is missing (a benchmark that failed, or a
	// pass the time bound left out).
	Error string `json:"error,omitempty"`
}

// benchRun is one run of one benchmark: its figures by unit.
type benchRun map[string]float64

// benchKey names a benchmark of a package.
type benchKey struct{ pkg, name string }

// measurement is what the passes gathered.
type measurement struct {
	Rows     []rowResult
	Passes   int
	Unlisted []string  // benchmarks of the packages measured that no row names
	Load     []loadAvg // at the start and after each pass
	Build    time.Duration
	Cut      string // what the time bound cut short, if it did
}

// schedule returns the benchmarks a pass runs, in order: each row's
// benchmark followed by its baseline, each benchmark once.
func schedule(rs []row) []benchKey {
	var order []benchKey
	seen := map[benchKey]bool{}
	add := func(k benchKey) {
		if !seen[k] {
			seen[k] = true
			order = append(order, k)
		}
	}
	for _, r := range rs {
		add(benchKey{r.Pkg, r.Bench})
		if r.Base != "" {
			add(benchKey{r.Pkg, r.Base})
		}
	}
	return order
}

// benchRegexp is the -test.bench pattern that selects exactly name
// ("Commit/192B"): one anchored, quoted expression per level.
func benchRegexp(name string) string {
	parts := strings.Split("Benchmark"+name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// measure compiles the packages of rs and runs their benchmarks.
func measure(ctx context.Context, rs []row, cfg measureConfig) (measurement, error) {
	var m measurement
	if cfg.Filter != nil {
		rs = slices.DeleteFunc(slices.Clone(rs), func(r row) bool {
			return !cfg.Filter.MatchString(r.Name) && !cfg.Filter.MatchString(r.Bench)
		})
	}
	dir, err := os.MkdirTemp("", "rollnet-bench-")
	if err != nil {
		return m, err
	}
	defer os.RemoveAll(dir)

	root, err := moduleRoot()
	if err != nil {
		return m, err
	}
	// Compile every package's tests once, without -race.
	began := time.Now()
	bins := map[string]string{}
	var pkgs []string
	for _, r := range rs {
		if _, ok := bins[r.Pkg]; !ok {
			bins[r.Pkg] = filepath.Join(dir, fmt.Sprintf("%d.test", len(bins)))
			pkgs = append(pkgs, r.Pkg)
		}
	}
	for i, p := range pkgs {
		cmd := exec.CommandContext(ctx, "go", "test", "-c", "-o", bins[p], p)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil && ctx.Err() != nil {
			// A loaded machine (or a cold build cache) outran the bound:
			// every row says so, and the report is still written.
			m.Cut = fmt.Sprintf("the time bound ended compiling %s's tests (%d of %d packages compiled in %v)",
				p, i, len(pkgs), time.Since(began).Round(time.Second))
			fmt.Fprintf(cfg.Log, "bench: %s\n", m.Cut)
			m.Build = time.Since(began)
			m.Rows = foldRows(rs, nil, nil)
			return m, nil
		}
		if err != nil {
			return m, fmt.Errorf("go test -c %s: %w\n%s", p, err, out)
		}
	}
	m.Build = time.Since(began)

	// Every row's benchmarks exist; every benchmark has a row.
	named := map[string]bool{}
	for _, r := range rs {
		named[r.Pkg+" "+topLevel(r.Bench)] = true
		if r.Base != "" {
			named[r.Pkg+" "+topLevel(r.Base)] = true
		}
	}
	have := map[string]bool{}
	for _, p := range pkgs {
		list, err := listBenchmarks(ctx, bins[p], filepath.Join(root, p))
		if err != nil {
			return m, err
		}
		for _, b := range list {
			have[p+" "+b] = true
			if !named[p+" "+b] && cfg.Filter == nil {
				m.Unlisted = append(m.Unlisted, strings.Trim(p, "./")+" "+b)
			}
		}
	}
	for _, r := range rs {
		for _, b := range []string{r.Bench, r.Base} {
			if b != "" && !have[r.Pkg+" "+topLevel(b)] {
				return m, fmt.Errorf("row %q: %s has no Benchmark%s (bench/rows.go)", r.Name, r.Pkg, topLevel(b))
			}
		}
	}

	order := schedule(rs)
	runs := map[benchKey][]benchRun{} // one a pass; nil where it failed
	fails := map[benchKey]string{}
	m.Load = append(m.Load, readLoad())
	var last time.Duration
	for pass := 0; pass < cfg.Passes; pass++ {
		if pass > 0 && !cfg.Deadline.IsZero() && time.Now().Add(last).After(cfg.Deadline) {
			fmt.Fprintf(cfg.Log, "bench: %d of %d passes: the last took %v, and one more would end past the time bound\n",
				pass, cfg.Passes, last.Round(time.Second))
			break
		}
		start := time.Now()
		seq := order
		if pass%2 == 1 {
			seq = slices.Clone(order)
			slices.Reverse(seq)
		}
		for i, k := range seq {
			if ctx.Err() != nil {
				m.Cut = fmt.Sprintf("the time bound ended pass %d after %d of its %d benchmarks", pass+1, i, len(seq))
				break
			}
			r, err := runBenchmark(ctx, bins[k.pkg], filepath.Join(root, k.pkg), k.name, cfg)
			if err != nil {
				fails[k] = err.Error()
			}
			runs[k] = append(runs[k], r)
		}
		last = time.Since(start)
		m.Passes++
		if m.Cut != "" {
			fmt.Fprintf(cfg.Log, "bench: %s\n", m.Cut)
			break
		}
		m.Load = append(m.Load, readLoad())
		fmt.Fprintf(cfg.Log, "bench: pass %d of %d: %d benchmarks in %v, load average %s\n",
			pass+1, cfg.Passes, len(order), last.Round(100*time.Millisecond), m.Load[len(m.Load)-1])
	}

	m.Rows = foldRows(rs, runs, fails)
	return m, nil
}

// foldRows makes each row's result from the runs of its benchmarks (one
// a pass) and their failures.
func foldRows(rs []row, runs map[benchKey][]benchRun, fails map[benchKey]string) []rowResult {
	var out []rowResult
	for _, r := range rs {
		res := rowResult{Group: r.Group, Name: r.Name, Package: strings.Trim(r.Pkg, "./"), Bench: r.Bench,
			Base: r.Base, BaseName: r.BaseName, NoBase: r.NoBase}
		sk := benchKey{r.Pkg, r.Bench}
		res.Subject = fold(runs[sk], r.unit())
		res.Error = missing(res.Subject, fails[sk], r.Bench)
		if r.Base != "" {
			bk := benchKey{r.Pkg, r.Base}
			b := fold(runs[bk], r.baseUnit())
			res.Baseline = &b
			if res.Error == "" {
				res.Error = missing(b, fails[bk], r.Base)
			}
			if b.Min > 0 {
				res.RatioOfMins = res.Subject.Min / b.Min
			}
			var ratios []float64
			for i := range min(len(res.Subject.Samples), len(b.Samples)) {
				s, bs := res.Subject.Samples[i], b.Samples[i]
				if s >= 0 && bs > 0 {
					ratios = append(ratios, s/bs)
				}
			}
			res.MedianRatio = median(ratios)
		}
		out = append(out, res)
	}
	return out
}

// missing says why f has no figure, or "" when it has one.
func missing(f figure, failed, bench string) string {
	switch {
	case f.Min >= 0:
		return ""
	case failed != "":
		return failed
	case len(f.Samples) == 0:
		return "the time bound left no pass for it"
	}
	return fmt.Sprintf("Benchmark%s reports no %s", bench, f.Unit)
}

// fold gathers unit over a benchmark's runs; a run that failed, or lacks
// the unit, counts -1 in Samples and is left out of Min and Median.
func fold(runs []benchRun, unit string) figure {
	f := figure{Unit: unit, Min: -1}
	var ok []float64
	for _, r := range runs {
		v, has := r[unit]
		if r == nil || !has {
			f.Samples = append(f.Samples, -1)
			continue
		}
		f.Samples = append(f.Samples, v)
		ok = append(ok, v)
		f.BPerOp = max(f.BPerOp, r["B/op"])
		f.AllocsPerOp = max(f.AllocsPerOp, r["allocs/op"])
	}
	if len(ok) > 0 {
		f.Min = slices.Min(ok)
		f.Median = median(ok)
	}
	return f
}

// moduleRoot is the directory of the main module's go.mod: rows name
// their packages relative to it.
func moduleRoot() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("bench: not inside the rollnet module")
	}
	return filepath.Dir(mod), nil
}

func topLevel(name string) string {
	if i := strings.IndexByte(name, '/'); i >= 0 {
		return name[:i]
	}
	return name
}

// listBenchmarks returns the top-level benchmarks of a compiled test
// binary, run in dir, without "Benchmark".
func listBenchmarks(ctx context.Context, bin, dir string) ([]string, error) {
	cmd := exec.CommandContext(ctx, bin, "-test.list", "^Benchmark")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s -test.list: %w", dir, err)
	}
	var names []string
	for _, l := range strings.Fields(string(out)) {
		if n, ok := strings.CutPrefix(l, "Benchmark"); ok {
			names = append(names, n)
		}
	}
	return names, nil
}

// runBenchmark runs one benchmark once, in its package's directory dir,
// and returns its figures.
func runBenchmark(ctx context.Context, bin, dir, name string, cfg measureConfig) (benchRun, error) {
	limit := cfg.RunLimit
	if limit <= 0 {
		limit = 2 * time.Minute
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.run", "^$", "-test.bench", benchRegexp(name),
		"-test.benchmem", "-test.count", "1", "-test.benchtime", cfg.Benchtime.String())
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	want := "Benchmark" + name
	if parent.Err() != nil {
		return nil, fmt.Errorf("the time bound ended Benchmark%s", name)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s did not finish within %v", want, limit)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %s", want, err, lastLines(out.String(), 3))
	}
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if n, s, ok := parseLine(sc.Text()); ok && n == want {
			return benchRun(s), nil
		}
	}
	return nil, fmt.Errorf("%s printed no result: %s", want, lastLines(out.String(), 3))
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], " / ")
}

// loadAvg is /proc/loadavg's 1, 5 and 15 minute figures.
type loadAvg [3]float64

func (l loadAvg) String() string {
	return fmt.Sprintf("%.2f %.2f %.2f", l[0], l[1], l[2])
}

// readLoad reads the load average (zeros where there is no /proc).
func readLoad() loadAvg {
	var l loadAvg
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return l
	}
	f := strings.Fields(string(b))
	for i := 0; i < 3 && i < len(f); i++ {
		l[i], _ = strconv.ParseFloat(f[i], 64)
	}
	return l
}
