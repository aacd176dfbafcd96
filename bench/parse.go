package main

import (
	"bufio"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Result is one benchmark's measurements: the median of its runs.
type Result struct {
	Package  string             `json:"package"`
	Name     string             `json:"name"`
	Runs     int                `json:"runs"`
	NsPerOp  float64            `json:"ns_per_op"`
	MBPerSec float64            `json:"mb_per_s,omitempty"`
	BPerOp   float64            `json:"b_per_op"`
	AllocsOp float64            `json:"allocs_per_op"`
	Metrics  map[string]float64 `json:"metrics,omitempty"`
	Baseline string             `json:"baseline,omitempty"`
	BaseNs   float64            `json:"baseline_ns_per_op,omitempty"`
	Ratio    float64            `json:"ratio,omitempty"`
	samples  []sample
}

type sample map[string]float64

// Output is what go test printed besides the benchmark lines.
type Output struct {
	CPU     string
	Results []*Result
}

// parse reads the text output of go test -bench -benchmem. Repeated runs
// (-count) of one benchmark are folded into one Result holding the median of
// each unit.
func parse(r io.Reader) (Output, error) {
	var out Output
	byKey := map[string]*Result{}
	pkg := ""
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "pkg: "):
			pkg = strings.TrimPrefix(line, "pkg: ")
		case strings.HasPrefix(line, "cpu: "):
			out.CPU = strings.TrimPrefix(line, "cpu: ")
		case strings.HasPrefix(line, "Benchmark"):
			name, s, ok := parseLine(line)
			if !ok {
				continue
			}
			key := pkg + " " + name
			res := byKey[key]
			if res == nil {
				res = &Result{Package: pkg, Name: name}
				byKey[key] = res
				out.Results = append(out.Results, res)
			}
			res.samples = append(res.samples, s)
		}
	}
	if err := sc.Err(); err != nil {
		return out, err
	}
	for _, res := range out.Results {
		res.fold()
	}
	return out, nil
}

// parseLine splits "BenchmarkX/sub-2  1000  12.5 ns/op  80 MB/s  0 B/op  0 allocs/op".
func parseLine(line string) (name string, s sample, ok bool) {
	f := strings.Fields(line)
	if len(f) < 4 || len(f)%2 != 0 {
		return "", nil, false
	}
	if _, err := strconv.Atoi(f[1]); err != nil {
		return "", nil, false
	}
	name = f[0]
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			name = name[:i]
		}
	}
	s = sample{}
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return "", nil, false
		}
		s[f[i+1]] = v
	}
	return name, s, true
}

func (r *Result) fold() {
	r.Runs = len(r.samples)
	units := map[string][]float64{}
	for _, s := range r.samples {
		for u, v := range s {
			units[u] = append(units[u], v)
		}
	}
	for u, vs := range units {
		m := median(vs)
		switch u {
		case "ns/op":
			r.NsPerOp = m
		case "MB/s":
			r.MBPerSec = m
		case "B/op":
			r.BPerOp = m
		case "allocs/op":
			r.AllocsOp = m
		default:
			if r.Metrics == nil {
				r.Metrics = map[string]float64{}
			}
			r.Metrics[u] = m
		}
	}
}

func median(vs []float64) float64 {
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// subjectOf returns the benchmark a baseline is measured against:
// "BenchmarkCommitBaselineCopy/192B" is the baseline of "BenchmarkCommit/192B".
func subjectOf(name string) (string, bool) {
	i := strings.Index(name, "Baseline")
	if i < 0 {
		return "", false
	}
	rest := name[i+len("Baseline"):]
	j := strings.IndexByte(rest, '/')
	if j < 0 {
		return name[:i], true
	}
	return name[:i] + rest[j:], true
}

// pair sets Baseline, BaseNs and Ratio on every result that has a baseline in
// the same package and run.
func pair(results []*Result) {
	byName := map[string]*Result{}
	for _, r := range results {
		byName[r.Package+" "+r.Name] = r
	}
	for _, b := range results {
		subj, ok := subjectOf(b.Name)
		if !ok {
			continue
		}
		r := byName[b.Package+" "+subj]
		if r == nil || b.NsPerOp == 0 {
			continue
		}
		r.Baseline = b.Name
		r.BaseNs = b.NsPerOp
		r.Ratio = r.NsPerOp / b.NsPerOp
	}
}
