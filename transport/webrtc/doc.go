// Package webrtc carries rollnet's datagrams over WebRTC data channels
// (pion), and finds its peers through a rendezvous (the signaling package's
// client, or any Signaler).
//
// # Contract
//
// A *Transport implements transport.Transport. Peer identities are the
// rendezvous ids (transport.Peer(signalingID)); Local is this endpoint's id.
//
//   - One PeerConnection per remote peer, one data channel on each:
//     negotiated (ID 0, no in-band open handshake), unordered, and
//     unreliable (MaxRetransmits 0), so a lost datagram is never resent.
//   - The channel is detached and read by one goroutine per peer into a
//     buffer of MaxMessageSize (= transport.MaxDatagram) bytes, the SCTP
//     maximum message size this endpoint advertises; datagrams are copied
//     into a bounded receive queue (Config.QueueLen) allocated once. A full
//     queue drops and counts. No allocation per datagram in this package
//     (pion allocates inside DTLS and SCTP).
//   - Send never blocks. It refuses datagrams over transport.MaxDatagram
//     (transport.ErrTooLarge), and drops and counts one when the peer's
//     channel is not open yet or holds more than Config.SendThreshold bytes
//     (256 by default): after a blackout, seconds-old inputs are not flushed
//     to the peer.
//   - A peer whose PeerConnection fails (ICE gave up: about 3.2 s of
//     silence with the default timeouts) or closes is gone for good: Send
//     returns transport.ErrPeerGone and a PeerGone event says why. A peer
//     that sends more than MaxMessageSize in one message is disconnected.
//   - Peers are found through the Signaler: a peer already present offers
//     to each newcomer (if both offer, the lower id wins); ICE candidates
//     trickle and are buffered (Config.MaxPendingCandidates) until the
//     remote description is set. ICE servers come from Config.ICEServers or
//     else from the Signaler. A peer that leaves the rendezvous before its
//     channel opens is gone; one whose channel is open stays (the data
//     channel outlives the rendezvous; ICE reports a real departure).
//   - Peers, WaitPeers and Events tell the game who is connected.
//   - Close closes every connection and waits for every goroutine the
//     Transport started.
//
// Everything from the network or the rendezvous is untrusted: malformed or
// out-of-order signals are counted and ignored, peers are bounded by
// Config.MaxPeers, and pending candidates per peer are bounded.
package webrtc
