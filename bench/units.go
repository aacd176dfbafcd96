package main

import (
	"math"
	"strconv"
	"strings"
)

// formatFigure prints v of unit for a reader: a time (unit "ns..." or
// "...-ns/..."), a
// size or a byte rate (unit "B/..." or "bytes/..."), or a plain number,
// with three significant digits and never an exponent.
func formatFigure(v float64, unit string) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "-"
	case strings.HasPrefix(unit, "ns"), strings.Contains(unit, "-ns/"):
		return formatTime(v)
	case strings.HasPrefix(unit, "B/s"):
		return formatBytes(v) + "/s"
	case strings.HasPrefix(unit, "B/"), strings.HasPrefix(unit, "bytes/"):
		return formatBytes(v)
	}
	return formatNumber(v)
}

// formatTime prints ns nanoseconds as ns, us, ms or s.
func formatTime(ns float64) string { return scaled(ns, "ns", "us", "ms", "s") }

// formatBytes prints b bytes as B, kB, MB or GB (powers of 1000).
func formatBytes(b float64) string { return scaled(b, "B", "kB", "MB", "GB") }

// formatNumber prints a count: three significant digits below 1,000,
// then k, M and G.
func formatNumber(v float64) string { return scaled(v, "", "k", "M", "G") }

// scaled prints v in the largest of units (each 1000 times the one
// before) that keeps it at 1 or more, with three significant digits.
func scaled(v float64, units ...string) string {
	a, i := round3(math.Abs(v)), 0
	for ; i+1 < len(units) && a >= 1000; i++ {
		v, a = v/1000, round3(a/1000)
	}
	if units[i] == "" {
		return sig3(v)
	}
	return sig3(v) + " " + units[i]
}

// formatRatio prints a ratio with two decimals ("0.69x"), one from 10
// on, none from 100 on.
func formatRatio(r float64) string {
	if r == 0 || math.IsNaN(r) || math.IsInf(r, 0) {
		return "-"
	}
	switch {
	case r >= 100:
		return strconv.FormatFloat(r, 'f', 0, 64) + "x"
	case r >= 10:
		return strconv.FormatFloat(r, 'f', 1, 64) + "x"
	}
	return strconv.FormatFloat(r, 'f', 2, 64) + "x"
}

// round3 rounds a (positive) to three significant digits, so that
// 999.96 picks the next unit up as it prints as 1000.
func round3(a float64) float64 {
	if a == 0 {
		return 0
	}
	p := math.Pow(10, 2-math.Floor(math.Log10(a)))
	return math.Round(a*p) / p
}

// sig3 prints v with at most three significant digits in plain decimal
// notation, without trailing zeros: 5.98, 59.8, 598, 13, 8.5, and 0.0123
// for small values.
func sig3(v float64) string {
	if v == 0 {
		return "0"
	}
	a := math.Abs(v)
	decimals := 0
	switch {
	case a >= 100:
		decimals = 0
	case a >= 10:
		decimals = 1
	case a >= 1:
		decimals = 2
	default:
		decimals = 2 - int(math.Floor(math.Log10(a)))
		decimals = min(decimals, 9)
	}
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	// 99.96 rounds to "100.0": drop the digit that is no longer significant.
	if decimals > 0 && len(strings.TrimLeft(strings.Replace(s, ".", "", 1), "-0")) > 3 {
		s = strconv.FormatFloat(v, 'f', decimals-1, 64)
	}
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
