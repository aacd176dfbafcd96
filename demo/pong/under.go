package main

import (
	"github.com/rollnet/rollnet/authority"
	"github.com/rollnet/rollnet/internal/netplayhatch"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/p2p"
	"github.com/rollnet/rollnet/transport/webrtc"
)

// What runs under a netplay.Match, for what the demo shows and records
// beyond netplay's API (its recording, -inject-desync, the report's
// host and client figures): nil for another mode or before it is built.

func p2pOf(m *netplay.Match[State, Input]) *p2p.Session[State, Input] {
	return netplayhatch.Of[*p2p.Session[State, Input]](m)
}

func spectatorOf(m *netplay.Match[State, Input]) *p2p.Spectator[State, Input] {
	return netplayhatch.Of[*p2p.Spectator[State, Input]](m)
}

func authHostOf(m *netplay.Match[State, Input]) *authority.Host[State, Input] {
	return netplayhatch.Of[*authority.Host[State, Input]](m)
}

func authClientOf(m *netplay.Match[State, Input]) *authority.Client[State, Input] {
	return netplayhatch.Of[*authority.Client[State, Input]](m)
}

func webRTCOf(m *netplay.Match[State, Input]) webrtc.Transport {
	return netplayhatch.Of[webrtc.Transport](m)
}
