package cli

import (
	"os"
	"testing"

	"github.com/webhooklint/webhooklint/internal/cache"
)

// TestMain gives the package's runs a cache folder of their own, removed
// afterwards: tests never write to the user's, and every run here goes
// through the cache as a user's does.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "webhooklint-cache-")
	if err != nil {
		panic(err)
	}
	if err := os.Setenv(cache.EnvVar, dir); err != nil { //nolint:usetesting // for the whole package, before any test
		panic(err)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}
