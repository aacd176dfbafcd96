//go:build !js

package fleetlocal

import (
	"os"
	"strings"
	"testing"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/require"
)

// TestUsersAsConfigured: the users a local fleet (fleetlocal, rollnet-fleet)
// runs its embedded NATS with have the permissions of nats-fleet.conf.
func TestUsersAsConfigured(t *testing.T) {
	for _, u := range []string{"host-h1", "host-h2", "placer", "operator"} { // the conf's passwords
		t.Setenv("ROLLNET_FLEET_"+strings.ToUpper(strings.ReplaceAll(u, "-", "_"))+"_PASSWORD", "pw-"+u)
	}
	opts, err := natsserver.ProcessConfigFile("../nats-fleet.conf")
	require.NoError(t, err)
	want := users([]string{"h1", "h2"}, func(user string) string {
		return os.Getenv("ROLLNET_FLEET_" + strings.ToUpper(strings.ReplaceAll(user, "-", "_")) + "_PASSWORD")
	})
	require.Equal(t, want, opts.Users)
}
