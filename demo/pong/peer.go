package main

import (
	"context"
	"fmt"
	"io"
)

// runLocal plays one match in this process and prints its report.
func runLocal(ctx context.Context, m match, o options, stdout, stderr io.Writer) int {
	var v *view
	if !o.headless {
		var err error
		if v, err = newView(m.Side()); err != nil {
			fmt.Fprintln(stderr, err)
			return 3
		}
	}
	err := play(ctx, m, v, o)
	if v != nil {
		v.close()
	}
	r := m.Report()
	if err != nil && r.Err == "" {
		r.Err = err.Error()
	}
	_ = m.Close()
	r.print(stdout)
	if !r.ok() {
		if r.Desyncs > 0 {
			return 1
		}
		return 3
	}
	return 0
}

func runParent(ctx context.Context, o options, stdout, stderr io.Writer) int {
	side := max(o.side, 0)
	return runLocal(ctx, newOfflineMatch(o.seedOr("offline"), side), o, stdout, stderr)
}

func runPeer(ctx context.Context, o options, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "pong: network play is not wired yet")
	return 3
}

func (o options) seedOr(room string) uint32 {
	if o.seed != 0 {
		return o.seed
	}
	return seedFor(room)
}
