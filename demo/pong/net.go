package main

import (
	"fmt"

	"github.com/rollnet/rollnet/authority/cmd/hostcmd"
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
