// Package link is the per-peer machinery every rollnet network mode
// shares: a P2P session and its spectators, an authoritative host and its
// clients. It speaks the root package's vocabulary (rollnet.Frame,
// rollnet.Event, rollnet.SyncError, rollnet.PeerStats, rollnet.NetConfig)
// and carries no players' inputs or states: those are its owner's payload.
// It pushes the events of a link (EventSynchronizing, EventSynchronized,
// EventSyncFailed, EventNetworkInterrupted, EventNetworkResumed,
// EventDisconnected, EventDesyncDetected); its owner pushes the events of
// players (EventRunning, EventPlayerDisconnected, EventWaitRecommended,
// EventPlayerRejoining, EventPlayerRejoined) into the same EventQueue. It
// lets a rejoin request through from a stranger's address (see Hostile
// packets below) because the owner, not the link, knows who a player is.
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
//     confirmed frame (RecordChecksum) and lets it ride on its own
//     messages: CarriedChecksum for messages whose frames the peer
//     acknowledges (until it acknowledges a frame first sent with it, on
//     at most three), RepeatedChecksum for those it does not (the first
//     three after each); ReceivedChecksum compares one that rode in.
//     LocalChecksum/RemoteChecksum do the same with Checksum messages of
//     their own. A difference is EventDesyncDetected, once per peer,
//     naming the earliest frame known to differ and the newest known to
//     agree.
//   - Hostile packets: a packet whose header does not parse, or that claims
//     what cannot be true, is counted (PeerStats.Malformed) and dropped;
//     packets from peers without a link are counted and dropped (and, with
//     ExpectPeers, a transport that can drops them before they take a
//     receive slot), as are a disconnected link's, but for wire.Rejoin
//     messages (a player asking to come back: its owner checks who it
//     is). While the owner admits strangers (AdmitStrangers: a player
//     may come back from an address it does not know), their Rejoin
//     messages are returned too, with no link and their sender (From);
//     an address is not an identity, so once the owner checked who a
//     stranger is, Rebind moves that player's link to its address and
//     the old one becomes unknown. Every running message is validated first, then must
//     pass Accept: its sequence number within 1024 of the anchor, the
//     newest sequence number of a packet that proved it came from the peer
//     (a handshake reply echoing our nonce, a quality reply echoing one of
//     our pings to the nanosecond). Forged packets with guessed sequence
//     numbers land one time in 32 and cannot move the anchor. A quality
//     report's frame advantage is bounded (SetMaxAdvantage).
//   - Time sync: the owner samples its frame advantage (AddLocalAdvantage)
//     and reads both means (Advantages); after recommending a wait it
//     resets them and discards the peer's reports until they can reflect
//     the wait (DiscardRemoteUntil). The round trip is seeded by the
//     handshake, and one sample counts for at most twice the estimate.
//
// Nothing here authenticates a packet: an attacker who can spoof the
// peer's address and guess a plausible sequence number can still inject
// a message (an input, a checksum) now and then. A transport that
// authenticates (WebRTC's DTLS) closes that.
//
// Every message's wire form is codec's. The owner handles its own payload
// messages (inputs, acks, states) between Receive and Tick, and sends them
// with Send, built on Buffer. Nothing here allocates after construction.
package link
