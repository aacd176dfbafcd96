package main

import (
	"slices"
	"strconv"
	"strings"
)

// sample is one benchmark line's figures by unit ("ns/op", "B/op",
// "bytes/packet", ...).
type sample map[string]float64

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

// median is the middle of vs (the mean of the two middle values of an
// even count), 0 for none.
func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
