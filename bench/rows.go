package main

import "fmt"

// rows is the report, one entry a line, in the order printed. To add a
// measurement, add a benchmark (and its baseline) in a _test.go file of
// its package, then a row here: the package, the benchmark's name
// without "Benchmark", the figure compared (Unit, "ns/op" when empty; a
// b.ReportMetric unit such as "B/s/client" otherwise) and either the
// baseline it is divided by (Base: a benchmark of the same package, run
// in alternation with it in every pass) or the reason it has none
// (NoBase). TestRowsAreComplete checks that every row says one or the
// other, that names fit the table, and that every benchmark of the
// packages named here has a row; `go run ./bench` fails on a row whose
// benchmark does not exist.
//
// Units are printed by what they count: a unit starting "ns" is a time
// (ns, us, ms, s), one starting "B/" or "bytes/" a size (B, kB, MB; a
// rate when followed by "/s"), anything else a plain number.
var rows = concat(
	group("ring (rollback)", "./rollback/",
		sizes(row{Name: "Commit", Bench: "Commit", Base: "CommitBaselineCopy", BaseName: "copy, 16 slots"}, ringSizes...),
		sizes(row{Name: "Commit, byte form", Bench: "BytesCommit", Base: "CommitBaselineCopy", BaseName: "copy, 16 slots"}, ringSizes...),
		sizes(row{Name: "Rollback", Bench: "Rollback", Base: "RollbackBaselineCopy", BaseName: "copy, 16 slots"}, ringSizes...),
		sizes(row{Name: "Rollback, byte form", Bench: "BytesRollback", Base: "RollbackBaselineCopy", BaseName: "copy, 16 slots"}, ringSizes...),
		[]row{
			{Name: "Peek", Bench: "Peek", Base: "PeekBaselineIndex", BaseName: "masked slice index"},
			{Name: "Peek, byte form", Bench: "BytesPeek", Base: "PeekBaselineIndex", BaseName: "masked slice index"},
		},
		sizes(row{Name: "Checksum", Bench: "Checksum", Base: "ChecksumBaselineCRC32C", BaseName: "crc32 Castagnoli"}, ringSizes...),
		sizes(row{Name: "ChecksumAt", Bench: "ChecksumAt", Base: "ChecksumBaselineCRC32C", BaseName: "crc32 Castagnoli"}, ringSizes...),
	),
	group("session", "./session/",
		[]row{
			{Name: "Step, inputs confirmed", Bench: "Step", Base: "StepBaselineSimulateCommit", BaseName: "simulate + Commit"},
			{Name: "a frame: 2 inputs + Step", Bench: "Frame", Base: "FrameBaselineSimulateCommit", BaseName: "simulate + Commit"},
		},
		sizes(row{Name: "rollback, 128 entities", Bench: "Rollback", Base: "RollbackBaselineRestoreResimulate", BaseName: "restore+resimulate"},
			"depth=1", "depth=4", "depth=8", "depth=15"),
		[]row{
			{Name: "simulate + Commit, 128 entities", Bench: "SimulateCommit",
				NoBase: "it is the baseline's unit: one frame of the 128-entity world and its Commit"},
			{Name: "pack + unpack inputs", Bench: "PackUnpack",
				NoBase: "the plain input packing itself: the wire rows compare the compact coding with it"},
		},
	),
	group("p2p", "./p2p/",
		[]row{
			{Name: "P2P AdvanceFrame/frame, 2 players", Bench: "P2PAdvanceFrame/players=2", Unit: "ns/frame",
				Base: "P2PBaselineStep/players=2", BaseUnit: "ns/op", BaseName: "core Step, no wire"},
			{Name: "P2P AdvanceFrame/frame, 4 players", Bench: "P2PAdvanceFrame/players=4", Unit: "ns/frame",
				Base: "P2PBaselineStep/players=4", BaseUnit: "ns/op", BaseName: "core Step, no wire"},
			{Name: "P2P round, 0 rollbacks a frame", Bench: "P2PRound/rollback=0",
				Base: "P2PRoundBaseline/rollback=0", BaseName: "2 cores, no wire"},
			{Name: "P2P round, 1 rollback a frame", Bench: "P2PRound/rollback=1",
				Base: "P2PRoundBaseline/rollback=1", BaseName: "2 cores, no wire"},
			{Name: "P2P input message, encode + decode", Bench: "P2PBaselineCodec",
				NoBase: "the wire's share of a P2P frame, itself beside the wire rows' plain copy"},
			{Name: "P2P bytes/s a peer, held inputs", Bench: "P2PBandwidth/held", Unit: "B/s/peer",
				NoBase: "a byte rate over the local network: the wire rows compare each packet with plain packing"},
			{Name: "P2P bytes/s a peer, mashed inputs", Bench: "P2PBandwidth/mashed", Unit: "B/s/peer",
				NoBase: "a byte rate over the local network: the wire rows compare each packet with plain packing"},
			{Name: "host tick feeding a spectator", Bench: "P2PSpectatorFeed", Unit: "feeding-ns/tick",
				Base: "P2PSpectatorFeed", BaseUnit: "live-ns/tick", BaseName: "its live tick"},
			{Name: "spectator live after a 1.5 s cut", Bench: "SpectatorPartition", Unit: "ns-live-again",
				NoBase: "fake-clock time, 200 ms one way, 10% loss: goal at most 0.5 s (0.70-1.57 s fed in bulk)"},
			{Name: "spectator trail after the cut", Bench: "SpectatorPartition", Unit: "trail-frames",
				Base: "SpectatorPartition", BaseUnit: "trail-frames-before", BaseName: "its trail before"},
			{Name: "bytes to a spectator a 1.5 s cut", Bench: "SpectatorPartition", Unit: "B/cut",
				NoBase: "host to spectator over a cut and 6 s after it: the live stream resending what is unacked"},
			{Name: "lossy joiner 36,000 behind: live", Bench: "SpectatorJoinLossy", Unit: "ns-to-live",
				NoBase: "fake-clock time, 200 ms one way, 10% loss, fed in bulk: each hole costs a round trip"},
			{Name: "lossy joiner 36,000 behind: bytes", Bench: "SpectatorJoinLossy", Unit: "B/join",
				NoBase: "host to spectator until live: 36,000 frames of 4 B, 144 kB raw"},
			{Name: "rejoin replay/frame, 4,096 a call", Bench: "P2PRejoinReplay/replay", Unit: "ns/frame",
				Base: "P2PRejoinReplay/baseline", BaseName: "simulate alone"},
			{Name: "rejoin feed, one tick's burst", Bench: "P2PRejoinFeed",
				NoBase: "one tick's burst read from the archive and sent: compare it with a 16.7 ms tick"},
		},
	),
	group("replay", "./replay/",
		[]row{
			{Name: "record a frame", Bench: "Record", Base: "RecordBaselineChecksum", BaseName: "copy + CRC32-C"},
			{Name: "record a frame: bytes", Bench: "Record", Unit: "bytes/frame",
				NoBase: "the file's size: 4 bytes of inputs and a checksum a frame written plainly"},
			{Name: "replay a frame, checked", Bench: "Replay", Base: "ReplayBaselineSimulate", BaseName: "simulate + CRC32-C"},
		},
	),
	group("wire (internal/wire)", "./internal/wire/",
		codecRows("Input", "InputBaselineCopy", "held-8f-1p", "changing-8f-1p", "held-8f-2p", "mixed-8f-2p", "random-8f-2p", "mixed-64f-4p-status"),
		codecRows("Messages", "MessagesBaselineCopy", "SyncRequest", "SyncReply", "InputAck", "QualityReport", "QualityReply", "KeepAlive", "Checksum", "Disconnect"),
	),
	group("local network (transport/local)", "./transport/local/",
		sizes(row{Name: "send + receive", Bench: "SendReceive", Base: "SendReceiveBaselineCopy", BaseName: "copy"},
			"Perfect/64B", "Nasty/64B", "Perfect/256B", "Nasty/256B", "Perfect/1200B", "Nasty/1200B"),
	),
	group("playout", "./playout/",
		[]row{
			{Name: "fixed timestep advance", Bench: "TimestepAdvance", NoBase: noFloor},
			{Name: "error smoother advance", Bench: "SmootherAdvance", NoBase: noFloor},
		},
	),
	group("pacing (internal/pacing)", "./internal/pacing/",
		sizes(row{Name: "queue push + tick", Bench: "QueuePushTick", Base: "QueuePushTickBaselineCopy", BaseName: "copy"}, "192B", "36000B"),
		[]row{
			{Name: "render clock advance", Bench: "ClockAdvance", NoBase: noFloor},
			{Name: "history put + blend, 192 B", Bench: "HistoryPutAt", NoBase: noFloor},
			{Name: "RTT estimator observe", Bench: "RTTObserve", NoBase: noFloor},
			{Name: "clock sync observe, window 32", Bench: "ClockSyncObserve/window32", NoBase: noFloor},
			{Name: "clock sync observe, window 256", Bench: "ClockSyncObserve/window256", NoBase: noFloor},
			{Name: "arrival estimator observe", Bench: "ArrivalObserve", NoBase: noFloor},
		},
	),
	group("pong rules (internal/ponggame)", "./internal/ponggame/",
		[]row{
			{Name: "pong Step", Bench: "Step", Base: "ChecksumState", BaseName: "checksum its state"},
			{Name: "record a minute, a checksum/60", Bench: "RecordPong/checksum-every-60",
				Base: "RecordPong/checksum-every-frame", BaseName: "a checksum a frame"},
			{Name: "a minute's file, a checksum/60", Bench: "RecordPong/checksum-every-60", Unit: "bytes/minute",
				Base: "RecordPong/checksum-every-frame", BaseName: "a checksum a frame"},
			{Name: "replay a minute, checked", Bench: "ReplayPong",
				NoBase: "3,600 frames simulated and checked: the session rows compare a replayed frame with simulate"},
		},
	),
	group("fixed-point math (fixed)", "./fixed/",
		[]row{
			{Name: "fixed Mul", Bench: "Mul", Base: "MulBaselineFloat64", BaseName: "float64"},
			{Name: "fixed Div", Bench: "Div", Base: "DivBaselineFloat64", BaseName: "float64"},
			{Name: "fixed Sqrt", Bench: "Sqrt", Base: "SqrtBaselineFloat64", BaseName: "float64"},
			{Name: "fixed Sin", Bench: "Sin", Base: "SinBaselineFloat64", BaseName: "float64"},
			{Name: "fixed Atan2", Bench: "Atan2", Base: "Atan2BaselineFloat64", BaseName: "float64"},
			{Name: "fixed Hypot", Bench: "Hypot", Base: "HypotBaselineFloat64", BaseName: "float64"},
			{Name: "fixed RotateNormalize", Bench: "RotateNormalize", Base: "RotateNormalizeBaselineFloat64", BaseName: "float64"},
		},
	),
	group("signaling", "./signaling/",
		[]row{
			{Name: "parse a relayed signal", Bench: "ParseEnvelope", Base: "BaselineJSONValid", BaseName: "json.Valid"},
		},
	),
	group("authority (bench)", "./bench/",
		[]row{
			{Name: "host tick, 8 clients, 128 entities", Bench: "AuthorityHostTick/8clients_128entities",
				Base: "AuthorityHostTickBaselineCopy/8clients_128entities", BaseName: "simulate+copy+CRC"},
			{Name: "host tick per client, 8 clients", Bench: "AuthorityHostTick/8clients_128entities", Unit: "ns/client",
				Base: "AuthorityHostTickBaselineCopy/8clients_128entities", BaseUnit: "ns/client", BaseName: "copy, CRC a client"},
			{Name: "client tick, prediction held", Bench: "AuthorityClientTick/match",
				Base: "AuthorityClientTickBaselineSimulate/match", BaseName: "one simulate"},
			{Name: "client tick, mismatch: resimulate", Bench: "AuthorityClientTick/mismatch",
				Base: "AuthorityClientTickBaselineSimulate/mismatch", BaseName: "one simulate"},
			{Name: "bytes/s a client, delta-coded", Bench: "AuthorityStateBytes/delta", Unit: "B/s/client",
				Base: "AuthorityStateBytes/full", BaseName: "full states"},
			{Name: "host: a rewound shot, 128 entities", Bench: "AuthorityRewindShot", Unit: "ns/shot",
				Base: "AuthorityRewindShotBaselineSimulate", BaseUnit: "ns/op", BaseName: "one simulate step"},
			{Name: "entity host: rewound shot, 128 ent", Bench: "EntityRewindShot", Unit: "ns/shot",
				Base: "EntityRewindShotBaselineSimulate", BaseUnit: "ns/op", BaseName: "one simulate step"},
			{Name: "pong: bytes/s a client", Bench: "AuthorityPongBytes/delta", Unit: "B/s/client",
				NoBase: "a goal, not a floor: at most 1,000 B/s all told (issue 29); its 56-byte state sent whole each tick is 3,360 B/s of payload alone"},
		},
		scaleRows(),
		entityRows(),
		hostPathRows(),
		profileRows(profileLinks...),
	),
)

// ringSizes are the rollback package's state sizes.
var ringSizes = []string{"192B", "8KiB", "36000B", "1MiB"}

const noFloor = "a few arithmetic operations of bookkeeping: no physical floor to divide by"

// row is one line of the report.
type row struct {
	Group string // the heading it is printed under (set by group)
	Pkg   string // the package whose tests hold the benchmarks, "./rollback/" (set by group)
	Name  string // what it measures, in the reader's words (at most nameWidth characters)
	Bench string // the benchmark, without "Benchmark": "Commit/192B"
	Unit  string // the figure compared: "ns/op" when empty
	// Base is the baseline's benchmark, in the same package, run in
	// alternation with Bench in every pass (the same benchmark is run
	// once a pass, and both figures read from it); BaseUnit its figure
	// (Unit when empty); BaseName what it is (at most baseWidth).
	Base, BaseUnit, BaseName string
	// NoBase says why there is no baseline, when Base is empty.
	NoBase string
}

func (r row) unit() string {
	if r.Unit == "" {
		return "ns/op"
	}
	return r.Unit
}

func (r row) baseUnit() string {
	if r.BaseUnit == "" {
		return r.unit()
	}
	return r.BaseUnit
}

func concat(groups ...[]row) []row {
	var all []row
	for _, g := range groups {
		all = append(all, g...)
	}
	return all
}

// group sets the heading and package of rows.
func group(heading, pkg string, rowss ...[]row) []row {
	var all []row
	for _, rs := range rowss {
		for _, r := range rs {
			r.Group, r.Pkg = heading, pkg
			all = append(all, r)
		}
	}
	return all
}

// sizes is r once per sub-benchmark: sub appended to Bench and Base (as
// "/sub") and to Name.
func sizes(r row, subs ...string) []row {
	out := make([]row, 0, len(subs))
	for _, s := range subs {
		c := r
		c.Name = r.Name + ", " + s
		c.Bench = r.Bench + "/" + s
		if r.Base != "" {
			c.Base = r.Base + "/" + s
		}
		out = append(out, c)
	}
	return out
}

// codecRows are a wire benchmark's encode and decode of each case beside
// a plain copy of as many bytes, and its packet's size beside the plain
// packing's.
func codecRows(bench, base string, cases ...string) []row {
	var out []row
	for _, c := range cases {
		out = append(out,
			row{Name: bench + " " + c + ", encode", Bench: bench + "/" + c + "/encode", Base: base + "/" + c + "/encode", BaseName: "copy the bytes"},
			row{Name: bench + " " + c + ", decode", Bench: bench + "/" + c + "/decode", Base: base + "/" + c + "/decode", BaseName: "copy the bytes"},
		)
		if bench == "Input" {
			out = append(out,
				row{Name: bench + " " + c + ", both", Bench: bench + "/" + c + "/roundtrip", Base: base + "/" + c + "/roundtrip", BaseName: "copy the bytes"},
				row{Name: bench + " " + c + ", bytes", Bench: bench + "/" + c + "/encode", Unit: "bytes/packet",
					Base: base + "/" + c + "/encode", BaseName: "plain packing"})
		}
	}
	return out
}

// scaleRows are the authority host in the 1024-entity world by room size:
// its CPU per client beside the copy-and-CRC floor, and the bytes a
// client costs beside a room of one's.
func scaleRows() []row {
	var out []row
	for _, n := range []int{1, 4, 16, 64, 128, 256} {
		sub := fmt.Sprintf("%dclients_1024entities", n)
		out = append(out, row{Name: fmt.Sprintf("host/client, %d clients, 1024 ent", n),
			Bench: "AuthorityHostScale/" + sub, Unit: "ns/client",
			Base: "AuthorityHostScaleBaselineCopy/" + sub, BaseName: "copy, CRC a client"})
	}
	for _, how := range []string{"held", "pressed"} {
		for _, n := range []int{1, 16, 64} {
			r := row{Name: fmt.Sprintf("B/s a client, %s, %d clients", how, n),
				Bench: fmt.Sprintf("AuthorityStateBytesScale/%s_%dclients", how, n), Unit: "B/s/client"}
			if n == 1 {
				r.NoBase = "the room of one that the larger rooms are divided by"
			} else {
				r.Base, r.BaseName = fmt.Sprintf("AuthorityStateBytesScale/%s_1clients", how), "a room of one"
			}
			out = append(out, r)
		}
	}
	return out
}

// profileLinks are BenchmarkP2PProfile's links: its sub-benchmark, a
// short label, and the link in words.
var profileLinks = [][3]string{
	{"40ms+-6ms_0.2%", "40ms 0.2%", "40 ms ± 6 ms, 0.2 % loss"},
	{"100ms+-15ms_2%", "100ms 2%", "100 ms ± 15 ms, 2 % loss"},
	{"200ms+-30ms_10%", "200ms 10%", "200 ms ± 30 ms, 10 % loss"},
}

// profileRows are what a player feels over each simulated link.
func profileRows(links ...[3]string) []row {
	const why = "what a player feels over a simulated link (one way, with jitter and loss), on a fake clock: " +
		"no floor but zero"
	var out []row
	for _, l := range links {
		b, n := "P2PProfile/"+l[0], "P2P "+l[1]+": "
		out = append(out,
			row{Name: n + "rollbacks a second", Bench: b, Unit: "rollbacks/s", NoBase: why},
			row{Name: n + "deepest rollback", Bench: b, Unit: "deepest", NoBase: why},
			row{Name: n + "frames ahead", Bench: b, Unit: "frames-ahead", NoBase: why},
			row{Name: n + "bytes/s a peer", Bench: b, Unit: "B/s/peer", NoBase: why},
			row{Name: n + "checksums agree", Bench: b, Unit: "agree", NoBase: "1 when every frame compared agreed, 0 otherwise"},
		)
	}
	return out
}

// readmeRows are the rows of the README's "Latest measurements" table, by
// Name, in its order: go run ./bench -markdown bench/latest.json prints it.
var readmeRows = []string{
	"Commit, 192B", "Commit, 1MiB", "Rollback, 192B", "Rollback, 1MiB",
	"Checksum, 192B", "Checksum, 1MiB", "Peek",
	"Step, inputs confirmed", "a frame: 2 inputs + Step",
	"rollback, 128 entities, depth=1", "rollback, 128 entities, depth=8",
	"P2P AdvanceFrame/frame, 2 players", "P2P AdvanceFrame/frame, 4 players",
	"P2P round, 0 rollbacks a frame", "P2P round, 1 rollback a frame",
	"host tick feeding a spectator", "rejoin replay/frame, 4,096 a call",
	"spectator live after a 1.5 s cut", "spectator trail after the cut", "bytes to a spectator a 1.5 s cut",
	"record a frame", "replay a frame, checked",
	"Input held-8f-1p, encode", "Input held-8f-1p, decode", "Input held-8f-1p, bytes",
	"Input mixed-8f-2p, bytes", "Messages InputAck, encode",
	"send + receive, Perfect/1200B",
	"queue push + tick, 192B", "queue push + tick, 36000B",
	"pong Step", "a minute's file, a checksum/60",
	"parse a relayed signal",
	"host tick per client, 8 clients",
	"host/client, 64 clients, 1024 ent", "host/client, 256 clients, 1024 ent",
	"B/s a client, held, 64 clients", "B/s a client, pressed, 64 clients",
	"client tick, prediction held", "client tick, mismatch: resimulate",
	"bytes/s a client, delta-coded", "pong: bytes/s a client",
	"P2P 40ms 0.2%: bytes/s a peer", "P2P 200ms 10%: bytes/s a peer",
	"P2P 200ms 10%: rollbacks a second",
}
