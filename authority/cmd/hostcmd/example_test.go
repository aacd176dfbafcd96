package hostcmd_test

import (
	"fmt"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/authority/cmd/hostcmd"
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

// A game registers its simulation at init; its binary's main is then
// hostcmd.Main, whose -game picks it (or it is the only one).
func ExampleRegister() {
	hostcmd.Register("counter", hostcmd.Sim[counter, int8]{Players: 4, Simulate: count})
	fmt.Println(hostcmd.Games())
	// main: os.Exit(hostcmd.Main("counter-host", os.Args[1:], os.Stdout, os.Stderr))
	// Output: [counter line]
}
