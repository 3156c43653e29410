package cli

import (
	"os"
	"testing"

	"github.com/webhooklint/webhooklint/internal/cache/cachetest"
)

// TestMain gives the package's runs a cache folder of their own, removed
// afterwards: tests never write to the user's, and every run here goes
// through the cache as a user's does.
func TestMain(m *testing.M) {
	os.Exit(cachetest.Run(m))
}
