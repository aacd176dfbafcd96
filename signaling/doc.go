// Package signaling is rollnet's rendezvous service: a WebSocket server that
// groups peers into rooms and relays WebRTC offers, answers and ICE
// candidates between them, and the Go client a transport uses to reach it.
package signaling
