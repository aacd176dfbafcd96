package main

import "errors"

// The demo's sentinel errors.
var (
	// errPeerLeft ends a match whose opponent (a spectator's host) left;
	// the report says how (netplay's News).
	errPeerLeft = errors.New("pong: the opponent left")
	// errQuit ends a match the player left (q, Esc, Ctrl-C on the screen;
	// SIGINT, SIGTERM, or a parent process that went away).
	errQuit = errors.New("pong: quit")
	// errCancelled ends a wait for the opponent that the player cancelled
	// (q, Esc or Ctrl-C on the screen; SIGINT or SIGTERM).
	errCancelled = errors.New("pong: cancelled while waiting for the opponent")
)
