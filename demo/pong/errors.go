package main

import "errors"

// The demo's sentinel errors.
var (
	// errPeerLeft ends a match the others left (the report says how).
	errPeerLeft = errors.New("pong: the opponent left")
	// errQuit ends a match the player left (a key, a signal, a parent gone).
	errQuit = errors.New("pong: quit")
	// errCancelled ends a wait the player cancelled.
	errCancelled = errors.New("pong: cancelled while waiting for the opponent")
)
