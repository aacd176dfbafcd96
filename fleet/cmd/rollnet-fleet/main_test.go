//go:build !js

package main

import (
	"bytes"
	"context"
	"flag"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUsage: -h prints what the command does, its modes, examples and
// every flag under its group, to stdout (it was Go's bare flag list); a
// flag error is a usage error (status 2) of one line.
func TestUsage(t *testing.T) {
	var out, errs bytes.Buffer
	err := run(context.Background(), []string{"-h"}, &out, &errs)
	require.ErrorIs(t, err, flag.ErrHelp)
	for _, want := range []string{"usage: rollnet-fleet", "embedded NATS", "-play -signal ws://", "Exit status", "The local fleet:", "-hosts int", "With -play", "-room string"} {
		require.Contains(t, out.String(), want)
	}
	require.Empty(t, errs.String())
	out.Reset()
	err = run(context.Background(), []string{"-bogus"}, &out, &errs)
	require.ErrorIs(t, err, errUsage)
	require.Contains(t, err.Error(), "-bogus")
	require.Empty(t, out.String())
}
