package main

import (
	"github.com/rollnet/rollnet/authority/cmd/hostcmd"
	"github.com/rollnet/rollnet/signaling"
)

// signalServer is a test's signaling server on a random loopback port.
type signalServer struct {
	*hostcmd.SignalServer
	url string // ws://127.0.0.1:PORT
}

func startSignalServer() (*signalServer, error) {
	srv, err := hostcmd.StartSignaling(signaling.ServerConfig{})
	if err != nil {
		return nil, err
	}
	return &signalServer{SignalServer: srv, url: srv.URL()}, nil
}

func (s *signalServer) close() { s.Close() }
