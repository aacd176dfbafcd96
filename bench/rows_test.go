package main

import (
	"bytes"
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRowsAreComplete: every row of bench/rows.go has a package, a
// benchmark, and either a baseline (with what it is) or the reason it has
// none; names fit their columns; and every benchmark function of the
// packages named has a row (read from their _test.go files, so that a
// benchmark added without a row fails here, not only in the report).
func TestRowsAreComplete(t *testing.T) {
	names := map[string]bool{}
	named := map[string]bool{}
	for _, r := range rows {
		require.NotEmpty(t, r.Pkg, "%+v", r)
		require.NotEmpty(t, r.Group, "%+v", r)
		require.NotEmpty(t, r.Bench, "%+v", r)
		assert.LessOrEqual(t, len(r.Name), nameWidth, "row name %q is wider than its column", r.Name)
		require.False(t, names[r.Name], "two rows named %q", r.Name)
		names[r.Name] = true
		if r.Base == "" {
			require.NotEmpty(t, r.NoBase, "row %q has neither a baseline nor the reason it has none", r.Name)
			require.Empty(t, r.BaseName, "row %q", r.Name)
		} else {
			require.Empty(t, r.NoBase, "row %q has a baseline and a reason for none", r.Name)
			require.NotEmpty(t, r.BaseName, "row %q does not say what its baseline is", r.Name)
			assert.LessOrEqual(t, len(r.BaseName), baseWidth, "row %q: baseline name %q is wider than its column", r.Name, r.BaseName)
		}
		named[r.Pkg+" "+topLevel(r.Bench)] = true
		if r.Base != "" {
			named[r.Pkg+" "+topLevel(r.Base)] = true
		}
	}
	for _, n := range readmeRows {
		require.True(t, names[n], "readmeRows names %q, which is no row", n)
	}
	pkgs := map[string]bool{}
	for _, r := range rows {
		pkgs[r.Pkg] = true
	}
	for pkg := range pkgs {
		benchmarks := benchmarkFuncs(t, filepath.Join("..", pkg))
		require.NotEmpty(t, benchmarks, "%s has no benchmark", pkg)
		for _, b := range benchmarks {
			require.True(t, named[pkg+" "+b], "Benchmark%s in %s has no row in bench/rows.go", b, pkg)
		}
		for key := range named {
			if p, b, _ := strings.Cut(key, " "); p == pkg {
				require.Contains(t, benchmarks, b, "a row names Benchmark%s, which %s does not have", b, pkg)
			}
		}
	}
}

// benchmarkFuncs lists the Benchmark functions of dir's _test.go files,
// without "Benchmark".
func benchmarkFuncs(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	require.NoError(t, err)
	var names []string
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil {
				continue
			}
			if n, ok := strings.CutPrefix(fn.Name.Name, "Benchmark"); ok && n != "" {
				names = append(names, n)
			}
		}
	}
	return names
}

// TestReportFitsAndReads prints the report of every row with figures of
// every magnitude: no line is wider than 120 columns, no figure is in
// e-notation, and a row without a baseline says why.
func TestReportFitsAndReads(t *testing.T) {
	rep := &Report{Date: "2026-12-01T19:00:00Z", GoVersion: "go1.26", OS: "linux", Arch: "amd64", CPUs: 2,
		Commit: "0123456789ab", CPU: "Example CPU", Passes: 5, Benchtime: "100ms",
		Load: []loadAvg{{9.5, 8.25, 7}, {10, 9, 8}}, Unlisted: []string{"x BenchmarkNew"}}
	scale := 0.37
	for i, r := range rows {
		scale *= 7.3
		if scale > 1e11 {
			scale = 0.0123 * float64(i%7+1)
		}
		sub := figure{Unit: r.unit(), Samples: []float64{scale, scale * 1.1}, Min: scale, Median: scale * 1.05, AllocsPerOp: float64(i % 3)}
		res := rowResult{Group: r.Group, Name: r.Name, Bench: r.Bench, Base: r.Base, BaseName: r.BaseName, NoBase: r.NoBase, Subject: sub}
		if r.Base != "" {
			b := figure{Unit: r.baseUnit(), Min: scale / 3, Median: scale / 2.9}
			res.Baseline, res.RatioOfMins, res.MedianRatio = &b, 3, 3.1
		}
		if i == 3 {
			res.Error = "BenchmarkX did not finish within 2m0s, and this message is long enough to wrap onto a second line of the report"
		}
		rep.Rows = append(rep.Rows, res)
	}
	var buf bytes.Buffer
	printHeader(&buf, rep)
	printRows(&buf, rep)
	printCatchReport(&buf, catchReport{Config: catchConfig{Frames: 36000, FastRate: 4000}, Played: 15 * time.Second,
		Figures: []catchFigure{
			{Kind: "spectator", Frames: 36120, Connect: 15 * time.Millisecond, Replayed: 450 * time.Millisecond, Rate: 80280, Live: 450 * time.Millisecond,
				Quiet: tickTimes{P50: 48 * time.Microsecond, P99: 620 * time.Microsecond}, Busy: tickTimes{P50: 124 * time.Microsecond, P99: 1090 * time.Microsecond},
				Compared: 36146, Sent: 328, Skipped: 2},
			{Kind: "rejoiner", Frames: 36267, R: 36380, Compared: 60},
		},
		Incomplete: "rejoiner: player 0 at frame 36400: context deadline exceeded, with more words to make it wrap past one line of the report"})
	out := buf.String()
	t.Logf("\n%s", out)
	e := regexp.MustCompile(`\d[eE][+-]?\d`)
	for _, line := range strings.Split(out, "\n") {
		require.LessOrEqual(t, len(line), maxWidth, "too wide: %q", line)
		require.False(t, e.MatchString(line), "e-notation: %q", line)
	}
	require.Contains(t, out, "no baseline: ")
	require.Contains(t, out, "not measured: ")
	require.Contains(t, out, "load average 9.50 8.25 7.00 at the start")
	require.Contains(t, out, "incomplete, not a failure")
}

func TestFormatFigure(t *testing.T) {
	for _, c := range []struct {
		v    float64
		unit string
		want string
	}{
		{5.979, "ns/op", "5.98 ns"},
		{0.5, "ns/op", "0.5 ns"},
		{137.9, "ns/op", "138 ns"},
		{2088, "ns/op", "2.09 us"},
		{57224, "ns/frame", "57.2 us"},
		{68621, "feeding-ns/tick", "68.6 us"},
		{999.96, "ns/op", "1 us"},
		{1.5e9, "ns/op", "1.5 s"},
		{2.5e6, "ns/op", "2.5 ms"},
		{13, "bytes/packet", "13 B"},
		{16023, "bytes/minute", "16 kB"},
		{35790, "B/s/client", "35.8 kB/s"},
		{2.3e6, "B/s/peer", "2.3 MB/s"},
		{5.966, "rollbacks/s", "5.97"},
		{16826520, "frames/s", "16.8 M"},
		{7e-06, "mismatch/state", "0.000007"},
		{0, "ns/op", "0 ns"},
	} {
		require.Equal(t, c.want, formatFigure(c.v, c.unit), "%v %s", c.v, c.unit)
	}
	require.Equal(t, "0.69x", formatRatio(0.685))
	require.Equal(t, "38.6x", formatRatio(38.56))
	require.Equal(t, "127x", formatRatio(127.2))
	require.Equal(t, "-", formatRatio(0))
}

func TestParseLine(t *testing.T) {
	name, s, ok := parseLine("BenchmarkCommit/192B-2   \t10000000\t        10.0 ns/op\t19200.00 MB/s\t       0 B/op\t       0 allocs/op")
	require.True(t, ok)
	require.Equal(t, "BenchmarkCommit/192B", name)
	require.Equal(t, sample{"ns/op": 10, "MB/s": 19200, "B/op": 0, "allocs/op": 0}, s)
	name, s, ok = parseLine("BenchmarkP2PProfile/40ms+-6ms_0.2%-2  60  4454 ns/op  1112 B/s/peer")
	require.True(t, ok)
	require.Equal(t, "BenchmarkP2PProfile/40ms+-6ms_0.2%", name)
	require.Equal(t, 1112.0, s["B/s/peer"])
	for _, bad := range []string{"BenchmarkX", "BenchmarkX-2 many 1 ns/op", "BenchmarkX-2 10 x ns/op", "PASS"} {
		_, _, ok := parseLine(bad)
		require.False(t, ok, bad)
	}
}

func TestBenchRegexpSelectsOne(t *testing.T) {
	require.Equal(t, `^BenchmarkCommit$/^192B$`, benchRegexp("Commit/192B"))
	re := regexp.MustCompile(strings.Split(benchRegexp("P2PProfile/40ms+-6ms_0.2%"), "/")[1])
	require.True(t, re.MatchString("40ms+-6ms_0.2%"))
	require.False(t, re.MatchString("40ms+-6ms_0x2%"))
}

// TestScheduleInterleaves: a pass runs each row's benchmark next to its
// baseline, each benchmark once.
func TestScheduleInterleaves(t *testing.T) {
	rs := []row{
		{Pkg: "p", Bench: "A/1", Base: "Base/1"},
		{Pkg: "p", Bench: "B/1", Base: "Base/1"},
		{Pkg: "p", Bench: "A/2", Base: "Base/2"},
		{Pkg: "p", Bench: "Same", Base: "Same"},
		{Pkg: "q", Bench: "A/1", NoBase: "why"},
	}
	require.Equal(t, []benchKey{{"p", "A/1"}, {"p", "Base/1"}, {"p", "B/1"}, {"p", "A/2"}, {"p", "Base/2"}, {"p", "Same"}, {"q", "A/1"}},
		schedule(rs))
}

// TestMeasureRunsPasses measures two real rows of pacing in three short
// passes: every figure comes from its pass, the ratio pairs each pass, and
// a row naming a benchmark that does not exist is refused.
func TestMeasureRunsPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and runs pacing's benchmarks")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rs := []row{
		{Group: "pacing", Pkg: "./internal/pacing/", Name: "queue", Bench: "QueuePushTick/192B", Base: "QueuePushTickBaselineCopy/192B", BaseName: "copy"},
		{Group: "pacing", Pkg: "./internal/pacing/", Name: "rtt", Bench: "RTTObserve", NoBase: "none"},
	}
	var log bytes.Buffer
	m, err := measure(ctx, rs, measureConfig{Passes: 3, Benchtime: 5 * time.Millisecond, Log: &log})
	require.NoError(t, err, "waited %v at most for pacing's benchmarks", 3*time.Minute)
	t.Logf("%s", log.String())
	require.Equal(t, 3, m.Passes)
	require.Len(t, m.Rows, 2)
	q := m.Rows[0]
	require.Empty(t, q.Error)
	require.Len(t, q.Subject.Samples, 3)
	require.Len(t, q.Baseline.Samples, 3)
	require.Positive(t, q.Subject.Min)
	require.LessOrEqual(t, q.Subject.Min, q.Subject.Median)
	require.InDelta(t, q.Subject.Min/q.Baseline.Min, q.RatioOfMins, 1e-9)
	require.Positive(t, q.MedianRatio)
	require.Zero(t, q.Subject.AllocsPerOp)
	require.Nil(t, m.Rows[1].Baseline)
	require.Len(t, m.Load, 4)
	require.Contains(t, m.Unlisted, "internal/pacing ClockAdvance")

	_, err = measure(ctx, []row{{Pkg: "./internal/pacing/", Name: "x", Bench: "NoSuch", NoBase: "none"}}, measureConfig{Passes: 1, Benchtime: time.Millisecond, Log: os.Stderr})
	require.ErrorContains(t, err, "has no BenchmarkNoSuch")

	// A bound that ends before the tests are compiled: every row says
	// so, and there is still a report to write.
	ended, stop := context.WithTimeout(ctx, time.Millisecond)
	defer stop()
	time.Sleep(2 * time.Millisecond) // let the bound pass: no wait on anything
	m, err = measure(ended, rs, measureConfig{Passes: 3, Benchtime: time.Millisecond, Log: os.Stderr})
	require.NoError(t, err)
	require.Contains(t, m.Cut, "the time bound ended compiling")
	require.Len(t, m.Rows, 2)
	require.Equal(t, "the time bound left no pass for it", m.Rows[0].Error)
}

// TestMarkdownFromReport: the README's table is printed from a JSON
// report, one line per readmeRows entry, and a report without one of them
// is refused.
func TestMarkdownFromReport(t *testing.T) {
	rep := Report{Date: "2026-12-01T19:00:00Z", Commit: "0123456789ab", GoVersion: "go1.26", CPUs: 2, CPU: "Example CPU",
		Command: "go run ./bench", Passes: 5, Benchtime: "100ms", Elapsed: "11m0s", Load: []loadAvg{{9.5, 8, 7}, {12, 9, 8}}}
	for _, r := range rows {
		res := rowResult{Group: r.Group, Name: r.Name, NoBase: r.NoBase, BaseName: r.BaseName,
			Subject: figure{Unit: r.unit(), Min: 1500, Median: 1600}}
		if r.Base != "" {
			res.Baseline = &figure{Unit: r.baseUnit(), Min: 500, Median: 510}
			res.RatioOfMins, res.MedianRatio = 3, 3.1
		}
		rep.Rows = append(rep.Rows, res)
	}
	path := filepath.Join(t.TempDir(), "latest.json")
	js, err := json.Marshal(rep)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, js, 0o644))
	var buf bytes.Buffer
	require.NoError(t, printMarkdown(&buf, path))
	out := buf.String()
	t.Logf("\n%s", out)
	require.Equal(t, len(readmeRows)+2+2+len(profileLinks), strings.Count(out, "\n|"),
		"a header, a rule and a line per row; then the profile table's")
	require.Contains(t, out, "| 200 ms ± 30 ms, 10 % loss | 1.5 k | 1.5 k | 1.5 k | 1.5 kB/s | no |")
	require.Contains(t, out, "| Commit, 192B (ring (rollback)) | 1.5 us (1.6 us) | copy, 16 slots: 500 ns (510 ns) | 3.00x (3.10x) | 0 |")
	require.Contains(t, out, "load average 9.50 8.00 7.00 at the start")

	rep.Rows = rep.Rows[1:]
	js, err = json.Marshal(rep)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, js, 0o644))
	require.ErrorContains(t, printMarkdown(&buf, path), `no row "Commit, 192B"`)
}
