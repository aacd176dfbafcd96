// Package multi makes one transport.Transport of several, so that one
// session hears peers on each: a dedicated host serving native clients
// over QUIC and others over WebRTC (or browsers over WebTransport, which
// the QUIC transport carries itself) in the same match.
//
// # Contract
//
// A Transport keeps the transport.Transport contract as long as its parts
// do and their peer identities are disjoint (WebRTC's are signaling ids,
// 16 hex digits; QUIC's are "q1", "client-42", "quic://..."; local's are
// the names given): a peer is reached through the part that knows it.
//
//   - Local is the first part's identity.
//   - Send (and SendBulk) offers the datagram to each part in order; the
//     first that does not answer transport.ErrUnknownPeer takes it (or
//     refuses it, with that part's error). A part without SendBulk gets
//     a plain Send.
//   - Receive takes the parts round robin, each keeping its own fairness
//     between its peers: a flood on one part fills only that part's
//     queue, and the other part's peers are read every other call.
//   - Expect and ExpectAnyone go to every part that implements
//     transport.Expecter; for a part that does not, this package drops
//     (and counts) datagrams from peers outside the latest Expect itself,
//     on Receive.
//   - Peers, WaitPeers and Events (transport.PeerSet) gather those of
//     every part that is a transport.PeerSet; a part that is not has no
//     peers to report.
//   - Close closes every part (each once) and returns their errors
//     joined; after it, Send and Receive return transport.ErrClosed.
//
// Nothing here allocates per datagram.
package multi
