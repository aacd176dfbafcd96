//go:build !js

package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/rollnet/rollnet/internal/transportfigures"
)

// printTransportsMarkdown prints the report's QUIC-beside-WebRTC figures
// and the local fleet's as the README's tables, or why they are missing.
// Both are held as JSON of their own types (Report.Transports, .Fleet).
func printTransportsMarkdown(w io.Writer, rep *Report) error {
	var f transportfigures.Figures
	if err := reread(rep.Transports, &f); err != nil {
		return fmt.Errorf("transports: %w", err)
	}
	switch {
	case rep.TransportsIncomplete != "":
		fmt.Fprintf(w, "\nQUIC beside WebRTC on loopback: %s.\n", rep.TransportsIncomplete)
	case len(f.Transports) == 2:
		fmt.Fprintln(w, "\nQUIC beside WebRTC on loopback, an authoritative host and its clients (`internal/transportfigures`):")
		fmt.Fprintln(w, "\n| figure | value | what |")
		fmt.Fprintln(w, "|---|---|---|")
		for _, r := range f.Rows() {
			fmt.Fprintf(w, "| %s | %s %s | %s |\n", r[0], r[1], r[2], r[3])
		}
		q, r := f.Transports[0], f.Transports[1]
		fmt.Fprintf(w, "\nQUIC against WebRTC: %.2fx the bytes on the wire, %.2fx the connect time, %.2fx the time to a first state, %.2fx the host CPU.\n",
			q.Wire.OnTheWire()/r.Wire.OnTheWire(), float64(q.Connect)/float64(r.Connect),
			float64(q.FirstState)/float64(r.FirstState), float64(q.HostCPU)/float64(r.HostCPU))
	}
	var ff FleetFigures
	if err := reread(rep.Fleet, &ff); err != nil {
		return fmt.Errorf("fleet: %w", err)
	}
	switch {
	case rep.FleetIncomplete != "":
		fmt.Fprintf(w, "\nThe local fleet: %s.\n", rep.FleetIncomplete)
	case ff.Matches > 0:
		fmt.Fprintf(w, "\nA local fleet (embedded NATS, %d signaling instances, %d hosts): %d matches of two bots placed, request to first host state p50 %.1f ms, p99 %.1f ms (%d refusals asked again), in %s.\n",
			ff.Signals, ff.Hosts, ff.Matches, ff.FirstStateP50Ms, ff.FirstStateP99Ms, ff.Refused, ff.Took)
	}
	return nil
}

// reread decodes v, a value that came out of JSON as any, into dst; nil
// leaves dst alone.
func reread(v, dst any) error {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, dst)
}
