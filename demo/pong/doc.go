// Command pong is rollnet's demo: a deterministic pong played by two
// processes over WebRTC with rollback netcode, peer to peer or
// server-authoritative, on a terminal or in a browser tab. `pong -h`
// (usageText and exitText in main.go) is the reference for the command
// line, the README's "Choosing a mode" for the modes.
//
// Package main holds the views and the command line only: the terminal
// view (view.go), the browser pong (web_wasm.go, built and served by -web
// in web.go) and the flags (main.go). The rules are package game; every
// network match, in every mode, is a netplay.Match (match.go).
//
// The contract its tests check: every peer agrees byte for byte on
// confirmed frames (a difference exits 1); a bad command line exits 2
// with one line before anything touches the network, and a room token in
// -signal's URL is never printed; an opponent who leaves is explained on
// the screen and in the report; the opponent process never outlives its
// parent (a stdin pipe, and on Linux the kernel); a panic in the terminal
// UI gives the terminal back before it is printed.
package main
