// Command bench runs rollnet's benchmarks and prints one table a reader can
// trust: every measured path beside its physical baseline from the same run
// (a plain copy for the ring, plain CRC32-C for checksums), the ratio between
// them, and the allocations per operation, which must read 0.
//
//	go run ./bench               # the table, and bench/latest.json
//	go run ./bench -count 5      # five runs of each benchmark; the median is kept
//	go run ./bench -catchup-only # the catch-up figures alone (no JSON)
//
// The JSON file carries its provenance: CPU, Go version, commit, date and the
// exact command that produced it.
//
// A benchmark is paired with its baseline by name: a benchmark named
// BenchmarkCommitBaselineCopy/192B is the baseline of BenchmarkCommit/192B.
// Custom metrics reported with b.ReportMetric (bytes/packet, rollbacks/s, ...)
// are carried into the table unchanged.
//
// After the benchmarks, the catch-up (catchup.go): a two-player match of
// -catchup frames (36,000: ten minutes at 60 fps) over real WebRTC on
// loopback (pion, a signaling server on 127.0.0.1), then a fresh
// spectator and a fresh rejoiner, each on a transport of its own, catch
// up on it while the players play at 60 Hz. It reports how long each
// took to replay the match and to be live, whether every frame it
// replayed (for the rejoiner, from R) has the players' checksum, and the
// feeding player's tick (p50, p99) before and during the catch-up in the
// same run, with the ticks its game stood still, and the datagrams it
// sent and the transport skipped. It runs once per -catchup-sendthreshold
// value (webrtc.Config.SendThreshold; the feed itself goes through the
// transport's bulk path). Real time, so a loaded machine moves the
// figures; TestCatchUp runs it short and checks only the agreement.
package main
