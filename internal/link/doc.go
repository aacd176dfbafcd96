// Package link is the per-peer machinery every rollnet network mode
// shares: a P2P session and its spectators, an authoritative host and its
// clients. It owns the vocabulary that machinery speaks (Frame, Event,
// SyncError, PeerStats, NetConfig) and knows nothing of players' inputs,
// states or spectators: those are its owner's payload.
//
// An Endpoint holds the transport, the clock, the links and the events. A
// Link is one remote end:
//
//   - Handshake: SyncRequest{random nonce, protocol, settings hash}
//     answered by SyncReply echoing the nonce, NetConfig.SyncRoundTrips
//     times, retried every SyncRetry with the same nonce, for at most
//     SyncTimeout (then EventSyncFailed, ReasonTimeout; a failed link
//     answers no matching request, so its peer times out too). The owner
//     computes the settings hash each end sends (Link.Offer) and expects
//     (Link.Expect) with SettingsHash; a mismatch fails the link on both
//     ends. Replies are rate-limited per peer (SyncReplyBudget per
//     SyncRetry).
//   - Running: QualityReport{frame advantage, ping} / QualityReply{pong}
//     every QualityInterval, giving the round-trip time and the peer's
//     frame advantage; KeepAlive when nothing else went out for KeepAlive;
//     EventNetworkInterrupted after DisconnectNotify of silence,
//     EventDisconnected after DisconnectTimeout or soon after a plausible
//     Disconnect notice (Close sends one).
//   - Checksums: the owner records its checksum of every ChecksumInterval-th
//     confirmed frame (LocalChecksum); it goes to every running link, is
//     repeated (RepeatChecksum), and reports from the peer (RemoteChecksum)
//     are compared once per frame: EventDesyncDetected on a difference.
//   - Hostile packets: a packet whose header does not parse, or that claims
//     what cannot be true, is counted (PeerStats.Malformed) and dropped;
//     packets from peers without a link are counted and dropped; a packet
//     that may change much must carry a sequence number near the newest
//     heard (Link.Plausible).
//
// Every message's wire form is codec's. The owner handles its own payload
// messages (inputs, acks, states) between Receive and Tick, and sends them
// with Send, built on Buffer. Nothing here allocates after construction.
package link
