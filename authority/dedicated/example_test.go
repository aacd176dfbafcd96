package dedicated_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority/dedicated"
)

// A counter every client pushes up or down.
type counter struct {
	N     int32
	Frame int32
}

func count(c *counter, in []int8, f rollnet.Frame) {
	for _, v := range in {
		c.N += int32(v)
	}
	c.Frame = int32(f)
}

// A game's binary hands its simulation to Main as a Sim, in a list of the
// games it hosts; -game picks one by name (or it is the only one).
func ExampleMain() {
	games := []dedicated.Game{dedicated.Sim[counter, int8]{Name: "counter", Players: 4, Simulate: count}}
	// main: os.Exit(dedicated.Main("counter-host", games, os.Args[1:], os.Stdout, os.Stderr))
	var usage bytes.Buffer
	status := dedicated.Main("counter-host", games, []string{"-h"}, io.Discard, &usage)
	for line := range strings.Lines(usage.String()) {
		if strings.Contains(line, "Games:") {
			fmt.Print(line)
		}
	}
	fmt.Println("status", status)
	// Output:
	// A dedicated host of rollnet's server-authoritative mode. Games: counter.
	// status 0
}
