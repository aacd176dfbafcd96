package main

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	transportClientsMain() // the transport figures' host-CPU clients run as a child of the test binary
	hostPathClientsMain()  // so do BenchmarkHostPath's
	goleak.VerifyTestMain(m)
}
