package dedicated

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain in a browser: the runtime keeps a goroutine that waits for the
// page's events (runtime.handleEvent); it is not this package's.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("runtime.handleEvent"))
}
