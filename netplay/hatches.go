package netplay

import (
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/p2p"
	"github.com/rollnet/rollnet/transport/webrtc"
)

// P2P, Spectator, AuthHost and AuthClient are the session underneath (nil
// until built, and for the other modes), for what netplay does not wrap
// (recording, statistics).
func (m *Match[S, I]) P2P() *p2p.Session[S, I] {
	if m.d == nil {
		return nil
	}
	return m.d.sessions().p
}

func (m *Match[S, I]) Spectator() *p2p.Spectator[S, I] {
	if m.d == nil {
		return nil
	}
	return m.d.sessions().sp
}

func (m *Match[S, I]) AuthHost() *authority.Host[S, I] {
	if m.d == nil {
		return nil
	}
	return m.d.sessions().h
}

func (m *Match[S, I]) AuthClient() *authority.Client[S, I] {
	if m.d == nil {
		return nil
	}
	return m.d.sessions().c
}

// WebRTC is the WebRTC transport joined through Config.Signal (nil while
// connecting and with Config.Transport), for what netplay does not wrap:
// ICE's round trip and route (PeerInfo), its drop counts (Stats).
func (m *Match[S, I]) WebRTC() webrtc.Transport {
	rtc, _ := m.link.rm.(webrtc.Transport)
	return rtc
}
