// Command bench runs rollnet's benchmarks and prints one table a reader can
// trust: every row is a measured path beside its physical baseline (a
// plain copy for the ring, plain CRC32-C for checksums), measured in the
// same run, or says why it has none.
//
//	go run ./bench                  # the table, the catch-up, and bench/latest.json
//	go run ./bench -passes 9        # more passes (5 by default)
//	go run ./bench -bench Checksum  # only the rows that match; no catch-up, no JSON
//	go run ./bench -catchup-only    # the catch-up figures alone (no JSON)
//
// The rows are declared in one table, rows.go: a row names its package,
// its benchmark, the figure it reads (ns/op, or a b.ReportMetric unit
// such as B/s/client), and its baseline (a benchmark of the same
// package) or the reason it has none. TestRowsAreComplete fails on a
// benchmark function that no row names.
//
// Each package's tests are compiled once (without -race); then the
// benchmarks run in passes, one process and -benchtime (100 ms) per
// benchmark, each row's benchmark next to its baseline, the order
// reversed every other pass, so that load that comes and goes weighs on
// both sides of a ratio alike. A row prints the minimum and the median of
// its passes for both sides, the ratio of the minimums and the median of
// the per-pass ratios, and the allocations per operation, which must read
// 0. The load average is printed before and after the passes. Times are
// printed in ns, us, ms or s and sizes in B, kB or MB, within 120
// columns.
//
// The whole run is bounded (-bound, 15 minutes): a pass is started only
// if, at the last pass's duration, it ends in time for the catch-up's own
// bound (3 min 27 s for 36,000 frames); the report says how many passes
// ran, and a row the bound left without a figure says so.
//
// The JSON file (bench/latest.json) carries every pass's figure and the
// provenance: CPU, Go version, commit, date, command, load averages.
//
// After the benchmarks, the catch-up (catchup.go): a two-player match of
// -catchup frames (36,000: ten minutes at 60 fps) over real WebRTC on
// loopback (pion, a signaling server on 127.0.0.1), then a fresh
// spectator and a fresh rejoiner, each on a transport of its own, catch
// up on it while the players play at 60 Hz. It reports how long each
// took to replay the match and to be live, how many of the frames it
// replayed (for the rejoiner, from R on, once 60 are confirmed or 20 s
// passed) were compared with the players' checksums, and the feeding
// player's tick (p50, p99) before and during the catch-up in the same
// run, with the ticks its game stood still, and the datagrams it sent and
// the transport skipped. Its check fails (exit status 1) only when
// checksums disagree or a session detects a desync: the figures are real
// time, so a loaded machine moves them, and a run a loaded machine cut
// short (a bound, a link that collapsed) is reported as incomplete, not
// failed. TestCatchUp runs it short and checks the agreement.
package main
