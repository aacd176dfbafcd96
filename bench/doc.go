// Command bench runs rollnet's benchmarks and prints one table a reader can
// trust: every measured path beside its physical baseline from the same run
// (a plain copy for the ring, plain CRC32-C for checksums), the ratio between
// them, and the allocations per operation, which must read 0.
//
//	go run ./bench               # the table, and bench/latest.json
//	go run ./bench -count 5      # five runs of each benchmark; the median is kept
//
// The JSON file carries its provenance: CPU, Go version, commit, date and the
// exact command that produced it.
//
// A benchmark is paired with its baseline by name: a benchmark named
// BenchmarkCommitBaselineCopy/192B is the baseline of BenchmarkCommit/192B.
// Custom metrics reported with b.ReportMetric (bytes/packet, rollbacks/s, ...)
// are carried into the table unchanged.
package main
