// Package crossarch proves that a recorded match replays to the same
// state, checksum for checksum, on every architecture rollnet targets, and
// that the package session's determinism advice is needed: a simulation
// that writes x*y + z (which Go may fuse into one multiply-add) diverges
// on arm64 and riscv64, while the same simulation written with
// float64(x*y) + z does not.
//
// It holds the harness (Match, Record, Replay, and the Mode the
// environment selects) and Cloud, a float-heavy simulation written by the
// rules. The tests beside it, and the pong demo's, run in three modes:
//
//   - by default, in one process: record, replay, and replay the fused
//     variant against the recording of the unfused one (it must diverge
//     exactly when this build fuses);
//   - ROLLNET_CROSSARCH_RECORD=dir: record every match to dir (on amd64);
//   - ROLLNET_CROSSARCH_REPLAY=dir: replay dir's recordings on this
//     architecture, natively (GOARCH=386) or under qemu-user
//     (go test -exec qemu-aarch64-static, qemu-riscv64-static).
//
// The commands are in the repository README, section "Determinism across
// architectures".
package crossarch
