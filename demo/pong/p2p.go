package main

import "fmt"

// newNetMatch builds the match over an open connection.
func newNetMatch(c *conn, o options) (match, error) {
	return nil, fmt.Errorf("pong: connected to %s in room %s (first %v), but the P2P session is not wired yet", c.peer, c.room, c.first)
}
