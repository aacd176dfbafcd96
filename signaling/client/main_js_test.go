package client

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain in a browser: every Client's goroutine has ended when the tests
// do (the runtime's own wait for the page's events is not this package's).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("runtime.handleEvent"))
}
