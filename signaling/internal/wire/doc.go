// Package wire is the signaling protocol's messages, shared by the server
// (package signaling) and the client (signaling/client): the envelope and
// its validation in each direction, the signal and ICE server types, the
// close codes and the sentinel errors. It imports no network code, so that
// a browser build of the client links neither net/http nor the server.
// The signaling package's doc.go states the protocol.
package wire
