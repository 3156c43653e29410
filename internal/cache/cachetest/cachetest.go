// Package cachetest gives a test binary's runs a cache folder of their
// own. Only tests import it.
package cachetest

import (
	"os"
	"testing"

	"github.com/webhooklint/webhooklint/internal/cache"
)

// Run runs m with the cache in a new folder, removed afterwards, and
// returns m.Run's exit code: tests never write to the user's cache, and
// every run (and every binary the tests start) goes through the cache as
// a user's does.
func Run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "webhooklint-cache-")
	if err != nil {
		panic(err)
	}
	if err := os.Setenv(cache.EnvVar, dir); err != nil { //nolint:usetesting // for the whole package, before any test
		panic(err)
	}
	defer func() { _ = os.RemoveAll(dir) }()
	return m.Run()
}
