// Package replay records a rollnet match and plays it back, and carries
// one state between machines for desync forensics.
//
// A Recorder writes a match (the game's settings hash, the initial state,
// every frame's confirmed inputs, a state checksum every N frames, and
// optionally those states) to an io.Writer in a small versioned format,
// documented in record.go, allocating nothing per frame. It is fed either
// frame by frame (Record) or from a Source as frames become confirmed
// (RecordConfirmed): a core *session.Session is a Source, and a P2P
// session, a spectator and an authoritative host record through theirs
// (their SetRecorder).
//
// A Replayer plays a recording back headless at full speed through the
// game's simulate, checks every recorded checksum and names the first
// frame that differs (a *MismatchError; when states were recorded, the
// fields that differ, see rollback.DiffBytes). The bytes of a recording are
// untrusted: a damaged, cut, foreign or forged file is an error
// (ErrCorrupt, ErrTruncated, ErrSettings, ErrFormat, ErrVersion), never a
// panic, and memory stays bounded by the header's sizes. Its decoders have
// fuzz targets (FuzzReplay, FuzzReadState).
//
// WriteState, ReadState and DescribeDesync are the forensics of a desync:
// when peers' checksums of a frame differ (rollnet.EventDesyncDetected),
// each writes its state of that frame (kept by session's KeepStates), the
// files are brought together, and DescribeDesync names the fields where
// the two worlds parted.
//
// States and inputs are stored as the bytes of their memory layout, the
// same on every little-endian platform; S and I must pass
// rollback.CheckType. The format is a contract: a change bumps its
// version, and a reader refuses a version it does not know (ErrVersion).
//
// replay imports rollnet, rollback and codec only: session imports it, not
// the other way round.
package replay
