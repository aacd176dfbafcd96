//go:build !js

package main

import (
	"fmt"
	"os"
	"time"

	"github.com/rollnet/rollnet/internal/transportfigures"
)

func transportClientsMain() { transportfigures.ClientsMain() }

// measureTransports adds QUIC beside WebRTC on loopback to rep, within
// end: bytes on the wire per input datagram, connect times, host CPU per
// client per tick.
func measureTransports(rep *Report, end time.Time) {
	left := time.Until(end)
	if left < time.Minute {
		rep.TransportsIncomplete = fmt.Sprintf("not measured: %v left of the bound", left.Round(time.Second))
		fmt.Printf("transports: %s\n", rep.TransportsIncomplete)
		return
	}
	f, err := transportfigures.Measure(transportfigures.Config{Limit: left / 8, Authority: authorityFigures{}})
	if err != nil {
		rep.TransportsIncomplete = err.Error()
		fmt.Printf("transports: incomplete: %v\n", err)
		return
	}
	rep.Transports = f
	f.Print(os.Stdout)
}
