// Package testkit is what the cluster tests of session, authority and
// torture share, so that each is written once: the test games (World,
// Mixer), a local network on a fake clock (NewNet), the game loops of a
// cluster on that clock (Run) and the agreement on every confirmed
// frame's checksum (Agreement).
//
// It imports neither session nor authority: a node is whatever has a
// Loop's two methods, a checksum source whatever has ChecksumAt.
package testkit
