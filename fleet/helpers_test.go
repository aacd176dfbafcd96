//go:build !js

package fleet_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/rollnet/rollnet/internal/natstest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func startNATS(t testing.TB) *natstest.Server { return natstest.Start(t) }
