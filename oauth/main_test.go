package oauth

import (
	"testing"

	"go.uber.org/goleak"
)

// Every test ends with no goroutine of its own left: key fetches outlive
// the requests that start them, never the test.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
