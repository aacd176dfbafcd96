// Package webrtc carries rollnet's datagrams over WebRTC data channels
// (pion natively, the page's own in a browser), and finds its peers
// through a signaling server (package signaling, joined with
// signaling/client).
//
// # Contract
//
// A Transport implements transport.Transport. Peer identities are the
// rendezvous ids (transport.Peer(signalingID)); Local is this endpoint's id.
//
//   - One PeerConnection per remote peer, one data channel on each:
//     negotiated (ID 0, no in-band open handshake), unordered, and
//     unreliable (MaxRetransmits 0), so a lost datagram is never resent.
//   - The channel is detached and read by one goroutine per peer into a
//     buffer of transport.MaxDatagram bytes, the SCTP
//     maximum message size this endpoint advertises; datagrams are copied
//     into a bounded receive queue (Config.Tuning.QueueLen slots allocated once,
//     shared by one lane per peer). Receive takes the lanes round robin; a
//     datagram that finds the queue full displaces the newest datagram of
//     the peer holding the most slots, or is dropped when its own peer
//     holds the most (counted either way): a flooding peer fills only its
//     share. Expect (transport.Expecter) drops datagrams from peers the
//     session does not expect before they take a slot, until ExpectAnyone
//     opens the gate again. No allocation per
//     datagram in this package (pion allocates inside DTLS and SCTP).
//   - Send never blocks. It refuses datagrams over transport.MaxDatagram
//     (transport.ErrTooLarge), and drops and counts one when the peer's
//     channel is not open yet. One that finds the channel holding more
//     than Config.Tuning.SendThreshold bytes (256 by default) waits in a queue of
//     four (internal/sendqueue, shared with transport/quic) until the
//     peer's acknowledgements bring the channel down to it: there a newer
//     datagram of its kind supersedes it (the newest
//     state matters, not the first), and one that waited over 250 ms is
//     dropped as stale, so that after a blackout seconds-old inputs are
//     not flushed to the peer. SendBulk, for the datagrams of a bulk transfer (the
//     session feeding a peer that catches up), queues up to
//     Config.Tuning.BulkThreshold (64 KiB) instead and says whether it took the
//     datagram, so that the sender stops its burst there.
//   - A peer whose PeerConnection fails (ICE gave up: about 3.2 s of
//     silence with the default timeouts) or closes is gone for good: Send
//     returns transport.ErrPeerGone and a transport.PeerGone event says why. A peer
//     that sends more than transport.MaxDatagram in one message is disconnected.
//   - Peers are found through the signaling server: a peer already present offers
//     to each newcomer (if both offer, the lower id wins), once no
//     rendezvous event is waiting, so a newcomer whose leave is already
//     queued costs no offer; Config.Accept, when set, chooses the peers to
//     connect to. Local ICE candidates are sent after the offer or answer,
//     in bundles (a JSON array, one message when gathering completes or
//     50 ms after the first candidate) to a peer that takes them
//     (candidateArrays: signaling's protocol version 2), and one a message
//     to any other (a browser page of version 1); a single candidate
//     object, as browsers send, is accepted as well as an array, and remote
//     ones are buffered (Config.Tuning.MaxPendingCandidates) until the remote
//     description is set. ICE servers come from Config.ICEServers or
//     else from the signaling server. A peer that leaves the rendezvous before its
//     channel opens is gone; one whose channel is open stays (the data
//     channel outlives the rendezvous; ICE reports a real departure).
//   - Peers, WaitPeers and Events tell the game who is connected; Events
//     also reports a peer interrupted (silent for about 1.2 s, may come
//     back) and resumed.
//   - Close closes every connection and waits for every goroutine the
//     Transport started.
//
// # Use
//
// RoomDialer.DialRoom (a transport.RoomDialer) and Dial join a signaling
// server room and return a Transport that owns the connection; New
// negotiates through a client.Client of signaling/client the caller keeps.
// Hand the Transport to
// p2p.New once WaitPeers reports the opponents; both sides can seat
// players from the sorted ids without exchanging a message. Config's zero
// value suits the Internet with the ICE servers the signaling server hands
// out; Config.LoopbackOnly suits tests and two processes on one machine;
// Config.Net runs on pion's virtual network.
//
// Transport.Path (transport.PathReporter) names the candidate pair ICE
// selected in its Route: the path ("direct", "stun" through a NAT's
// mapping, "relay" through TURN), the protocol of this end's first hop
// ("tcp" when TURN runs over TCP because UDP is blocked) and the two
// candidates' types, as "relay over TCP (relay to srflx)". A reflexive pair may be selected 250 ms after ICE's
// checks start and a relay pair 1 s after (Config.Tuning.ICEReflexiveWait,
// ICERelayWait). Measured through kernel NATs in network namespaces
// (internal/netlab): two players behind NATs that can be punched open
// their channel 0.2 to 0.4 s after the second one joins; where no direct
// path exists (two bare Linux masquerading routers, or a symmetric NAT
// against anything but a public or full-cone peer) the relay pair is
// open 1.0 to 1.1 s after it joins (2.1 to 2.2 s with pion's waits).
//
// # In a browser
//
// The package builds for GOOS=js GOARCH=wasm, where it drives the page's
// own RTCPeerConnection and RTCDataChannel through syscall/js
// (browser_js.go; ICE, DTLS and SCTP are the browser's) and links nothing
// of pion's stack; the signals keep their JSON shapes, so a browser peer, a
// native one and a plain-JS page negotiate with each other. The contract
// above holds, with the same channel, with these differences
// (browser_js.go): the channel is read through its onmessage event, on the
// browser's event loop, into the same bounded queue (a message over
// transport.MaxDatagram, which the browser accepts up to its own advertised size,
// or a text message, disconnects the peer: ErrOversizeMessage,
// ErrTextMessage); the ICE and SCTP timeouts and waits, LoopbackOnly, Net and
// LoggerFactory are the browser's and ignored; ICEServer has no
// CredentialType; candidates are the browser's own toJSON() (mDNS host
// names); Path reads getStats (RTT is 0 where a browser leaves out
// currentRoundTripTime, Protocol "" where it names neither relayProtocol
// nor protocol). The Dial of a browser build goes through
// signaling/client, which links neither the signaling server nor
// net/http: the browser pong (on netplay) is 5.4 MB (1.46 MB gzipped), where it was
// 7.2 MB (2.0 MB) with pion and the signaling package linked.
// Measured in headless Chromium against a native peer on loopback (the
// pong demo's browser tests): the channel opens 1 to 3 s after the page
// starts loading, and the network round trip reads 1 ms.
//
// # Measured (loopback, pion/webrtc v4.2.26, datachannel v1.6.4)
//
//   - Connection: data channels open about 20 ms after the first Dial
//     through an in-process signaling server; a P2P session is running
//     (5-round-trip handshake at 60 Hz) about 200 ms after.
//   - 32-byte round trip (BenchmarkRoundTrip): raw pion about 45 us p50;
//     through two Transports polled every 10 us about 130 us p50, adding no
//     allocation to pion's ~216 per round trip. A game polls once a frame,
//     so its input round trip is about one frame (TestEndToEnd600Frames).
//   - After a 1.5 s blackout (vnet, fake time): nothing sent during it is
//     delivered late (without the send threshold, about a third of it
//     arrived up to 2 s late), and the channel carries data again about
//     0.7 s after the path heals (1.7 s without the SCTP RTO cap). A dead
//     peer is gone 3.2 s after its last packet.
//   - pion/datachannel before v1.6.4 never applied a negotiated channel's
//     reliability settings: the channel stayed ordered and reliable, and
//     each loss held the next datagrams behind a retransmission. go.mod
//     requires v1.6.4; TestVNetLatencyAndLoss fails on the older one.
//
// Everything from the network or the rendezvous is untrusted: malformed or
// out-of-order signals are counted and ignored, peers are bounded by
// Config.MaxPeers, and pending candidates per peer are bounded.
package webrtc
