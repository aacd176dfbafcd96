//go:build js

package main

import "time"

// The transport figures run real sockets and child processes: not in a
// browser.
func transportClientsMain() {}

func measureTransports(rep *Report, _ time.Time) {
	rep.TransportsIncomplete = "not measured in a js/wasm build"
}

var fleetFlag = new(bool)

func measureFleet(rep *Report, _ time.Time) { rep.FleetIncomplete = "not measured in a js/wasm build" }
