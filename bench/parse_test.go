package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const sampleOutput = `goos: linux
goarch: amd64
pkg: github.com/rollnet/rollnet/rollback
cpu: Example CPU @ 2.00GHz
BenchmarkCommit/192B-2              	10000000	        10.0 ns/op	19200.00 MB/s	       0 B/op	       0 allocs/op
BenchmarkCommit/192B-2              	10000000	        30.0 ns/op	 6400.00 MB/s	       0 B/op	       0 allocs/op
BenchmarkCommit/192B-2              	10000000	        12.0 ns/op	16000.00 MB/s	       0 B/op	       0 allocs/op
BenchmarkCommitBaselineCopy/192B-2  	10000000	         8.0 ns/op	24000.00 MB/s	       0 B/op	       0 allocs/op
BenchmarkPacket-2                   	  500000	       100 ns/op	        14.00 bytes/packet	       0 B/op	       0 allocs/op
PASS
ok  	github.com/rollnet/rollnet/rollback	3.1s
`

func TestParseFoldsRunsIntoMedians(t *testing.T) {
	out, err := parse(strings.NewReader(sampleOutput))
	require.NoError(t, err)
	require.Equal(t, "Example CPU @ 2.00GHz", out.CPU)
	require.Len(t, out.Results, 3)
	c := out.Results[0]
	require.Equal(t, "BenchmarkCommit/192B", c.Name)
	require.Equal(t, "github.com/rollnet/rollnet/rollback", c.Package)
	require.Equal(t, 3, c.Runs)
	require.Equal(t, 12.0, c.NsPerOp)
	require.Equal(t, 16000.0, c.MBPerSec)
	require.Equal(t, 14.0, out.Results[2].Metrics["bytes/packet"])
}

func TestPairFindsBaselineInSameRun(t *testing.T) {
	out, err := parse(strings.NewReader(sampleOutput))
	require.NoError(t, err)
	pair(out.Results)
	c := out.Results[0]
	require.Equal(t, "BenchmarkCommitBaselineCopy/192B", c.Baseline)
	require.Equal(t, 8.0, c.BaseNs)
	require.InDelta(t, 1.5, c.Ratio, 1e-9)
	require.Empty(t, out.Results[2].Baseline)
}

func TestSubjectOf(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"BenchmarkCommitBaselineCopy/192B", "BenchmarkCommit/192B"},
		{"BenchmarkChecksumBaselineCRC32C/1MiB", "BenchmarkChecksum/1MiB"},
		{"BenchmarkStepBaseline", "BenchmarkStep"},
	} {
		got, ok := subjectOf(tc.in)
		require.True(t, ok)
		require.Equal(t, tc.want, got)
	}
	_, ok := subjectOf("BenchmarkCommit/192B")
	require.False(t, ok)
}
