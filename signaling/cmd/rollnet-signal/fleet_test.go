//go:build !js

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The fleet's flags: -fleet-secret-file without -nats, an unknown policy
// and a missing secret file are usage errors (status 2) saying so.
func TestFleetFlags(t *testing.T) {
	none := func(string) string { return "" }
	secret := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(secret, []byte("0123456789abcdef0123"), 0o600))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-fleet-secret-file", secret}, "-fleet-secret-file needs -nats"},
	} {
		var out, errs bytes.Buffer
		code := runMain(context.Background(), tc.args, &out, &errs, none)
		require.Equal(t, 2, code, "%v: %s", tc.args, errs.String())
		require.Contains(t, errs.String(), tc.want)
	}
}
