package main

import (
	"github.com/rollnet/rollnet/internal/localsignal"
	"github.com/rollnet/rollnet/signaling"
)

// signalServer is a test's signaling server on a random loopback port.
type signalServer struct {
	*localsignal.Server
	url string // ws://127.0.0.1:PORT
}

func startSignalServer() (*signalServer, error) {
	srv, err := localsignal.Start(signaling.ServerConfig{})
	if err != nil {
		return nil, err
	}
	return &signalServer{Server: srv, url: srv.URL()}, nil
}

func (s *signalServer) close() { s.Close() }
