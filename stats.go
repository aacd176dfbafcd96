package rollnet

import "time"

// PeerStats are the network statistics of one peer.
type PeerStats struct {
	Peer         Peer
	Spectator    bool // the peer is a spectator of this session (set by the owner)
	Synchronized bool // the handshake completed
	Interrupted  bool // silent for more than the disconnect notify time
	Disconnected bool
	// RTT is the smoothed round-trip time as the game loop sees it: from
	// the tick that sends a quality report to the tick that reads its
	// reply. Packets are read only when the game calls AdvanceFrame or
	// Poll, so it includes each packet's wait for the receiving loop's
	// next tick: with steady loops it is a whole number of this session's
	// ticks, at least one however short the link (on loopback at 60 fps,
	// 16.7 or 33 ms, smoothed in between). That is what an input meets on
	// its way, and what time sync needs; the network's own round trip is
	// about one tick less, and a transport may know it exactly (WebRTC's
	// ICE round trip).
	RTT time.Duration
	// LocalFrameAdvantage is how many frames this session runs ahead of the
	// peer, as estimated here; RemoteFrameAdvantage is the peer's estimate
	// of how far it runs ahead of this session, as it last reported.
	LocalFrameAdvantage, RemoteFrameAdvantage int
	// UnackedFrames is how many frames sent to the peer it has not
	// acknowledged yet.
	UnackedFrames int
	// Bytes per second each way over the last whole second.
	SendBytesPerSecond, ReceiveBytesPerSecond int
	PacketsSent, PacketsReceived              uint64
	BytesSent, BytesReceived                  uint64
	// Malformed counts packets from the peer dropped because they did not
	// decode or made claims that cannot be true (acks of frames never sent,
	// a frame advantage the window does not allow, a sequence number far
	// from the peer's: forged).
	Malformed uint64
	// ChecksumsCompared counts the confirmed frames whose checksum both
	// this session and the peer computed and compared here (one every
	// NetConfig.ChecksumInterval frames, each counted once however often
	// the report arrives); ChecksumsAgreed counts those that were equal.
	// ChecksumsCompared > ChecksumsAgreed means a desync (see
	// EventDesyncDetected). A spectator's own stats count its comparisons
	// with its host.
	ChecksumsCompared, ChecksumsAgreed uint64
	// RepairsTaken counts the desyncs this session repaired with the
	// peer's state (EventDesyncRepaired), RepairsServed those the peer
	// repaired with this session's (P2P players; a P2P spectator counts
	// those it took from its host, and its host those it served it).
	RepairsTaken, RepairsServed int
}
