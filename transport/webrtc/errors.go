package webrtc

import "errors"

var (
	// ErrICEFailed is the reason a peer is gone when ICE gave up on it
	// (no packet through for the configured failed timeout).
	ErrICEFailed = errors.New("webrtc: ICE failed")

	// ErrPeerLeft is the reason a peer is gone when signaling reported it
	// left before its data channel opened.
	ErrPeerLeft = errors.New("webrtc: peer left before connecting")

	// ErrOversizeMessage is the reason a peer is gone when it sent a
	// message larger than the advertised maximum message size. Such a peer
	// ignores the SDP it agreed to; it is disconnected, not read around.
	ErrOversizeMessage = errors.New("webrtc: peer sent a message over the maximum size")

	// ErrTextMessage is the reason a peer is gone, in a browser, when it
	// sent a text message on the game channel, which carries binary
	// datagrams only (the native build reads a message's bytes either way).
	ErrTextMessage = errors.New("webrtc: peer sent a text message")

	// ErrDisconnected is the reason a peer is gone when this endpoint
	// closed its connection (Disconnect).
	ErrDisconnected = errors.New("webrtc: disconnected by this endpoint")

	// ErrSignaling is the reason a peer is gone when its negotiation failed
	// (a malformed or out-of-order offer, answer or candidate).
	ErrSignaling = errors.New("webrtc: negotiation failed")
)
