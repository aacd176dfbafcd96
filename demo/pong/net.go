package main

import (
	"fmt"

	"github.com/rollnet/rollnet/authority/cmd/hostcmd"
	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/signaling"
)

// signalServer is the signaling server the parent runs for itself and its
// opponent, on a random loopback port (the dedicated host's).
type signalServer struct {
	*hostcmd.SignalServer
	url string // ws://127.0.0.1:PORT
}

func startSignalServer() (*signalServer, error) {
	srv, err := hostcmd.StartSignaling(signaling.ServerConfig{})
	if err != nil {
		return nil, fmt.Errorf("pong: signaling server: %w", err)
	}
	return &signalServer{SignalServer: srv, url: srv.URL()}, nil
}

func (s *signalServer) close() { s.Close() }

// roomURL is the join URL for -signal and -room (netplay.RoomURL): a
// named room, or, with no name, the next two joiners paired by the server;
// a room token in -signal's query (?token=T) is kept.
func roomURL(signal, room string) (string, error) {
	u, err := netplay.RoomURL(signal, room, "")
	if err != nil {
		return "", fmt.Errorf("pong: -signal wants ws://HOST:PORT or wss://HOST (a room token as ?token=T), got %q", netplay.RedactURL(signal))
	}
	return u, nil
}
