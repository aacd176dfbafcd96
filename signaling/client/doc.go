// Package client joins a signaling server's room (package signaling): it
// dials the WebSocket, joins, and delivers the peers' joins, leaves and
// signals as Events, and relays this client's offers, answers and
// candidates. It is the part of signaling a game links, and all a browser
// build does: it imports nothing of the server, and in a browser
// (GOOS=js) nothing of net/http either, using the page's own WebSocket
// (conn_js.go). Its names (Client, Config, Event, the errors, close codes,
// ICEServer, Signal) are the only ones for these things:
// package signaling, the server, uses them and names none of them again;
// its doc.go states the protocol.
package client
