// Package crossarch proves that a recorded match replays to the same
// state, checksum for checksum, on every architecture rollnet targets, and
// that the package session's determinism advice is needed: a simulation
// that writes x*y + z (which Go may fuse into one multiply-add) diverges
// on arm64 and riscv64, while the same simulation written with
// float64(x*y) + z does not.
//
// It holds the harness (Match, Record, Replay, and the Mode the
// environment selects) and three simulations: Cloud, float-heavy and
// written by the rules; Swarm, 320 bodies moved by trigonometry, roots and
// divisions written with package fixed, which agrees bit for bit on every
// architecture; and SwarmFloat, the same swarm in float64 written x*y + z,
// which rollnet-vet flags and which diverges where Go fuses. CI checks the
// swarm and pong with cmd/rollnet-check (their TestShipCheck tests: a sync
// test with random inputs, replayed on 386, arm64 and riscv64). The
// CrossArch tests beside it, and the pong demo's, run in three modes:
//
//   - by default, in one process: record, replay, and replay the fused
//     variant against the recording of the unfused one (it must diverge
//     exactly when this build fuses);
//   - ROLLNET_CROSSARCH_RECORD=dir: record every match to dir (on amd64);
//   - ROLLNET_CROSSARCH_REPLAY=dir: replay dir's recordings on this
//     architecture, natively (GOARCH=386) or under qemu-user
//     (go test -exec qemu-aarch64-static, qemu-riscv64-static).
//
// By hand, from the repository root (qemu-user-static is a Debian
// package; binfmt_misc is not needed, -exec names the emulator):
//
//	dir=$(mktemp -d)
//	ROLLNET_CROSSARCH_RECORD=$dir go test -count=1 -run CrossArch ./internal/crossarch ./internal/ponggame
//	GOARCH=386 ROLLNET_CROSSARCH_REPLAY=$dir go test -count=1 -v -run CrossArch ./internal/crossarch ./internal/ponggame
//	GOARCH=arm64 ROLLNET_CROSSARCH_REPLAY=$dir go test -count=1 -v -exec qemu-aarch64-static -run CrossArch ./internal/crossarch ./internal/ponggame
//	GOARCH=riscv64 ROLLNET_CROSSARCH_REPLAY=$dir go test -count=1 -v -exec qemu-riscv64-static -run CrossArch ./internal/crossarch ./internal/ponggame
//
// Each test logs the frames it replayed and the checksums that agreed on
// its architecture ("crossarch linux/arm64: pong: 3600 frames replayed,
// 3600 checksums agree").
package crossarch
