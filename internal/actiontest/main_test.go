package actiontest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/webhooklint/webhooklint/cli"
	"github.com/webhooklint/webhooklint/internal/cache/cachetest"
)

const selfVersionEnv = "WEBHOOKLINT_SELF_VERSION"

// TestMain runs this test binary as webhooklint when it is called by that
// name: releaseArtefacts packs it as the release binary the action
// downloads, so the tests of the action need no build of their own. Its
// version is the one the release would stamp, or selfVersionEnv's (the
// image test's build argument).
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "webhooklint" {
		cli.Version = releaseVersion
		if v := os.Getenv(selfVersionEnv); v != "" {
			cli.Version = v
		}
		os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	// The runs get a cache folder of their own, never the user's.
	os.Exit(cachetest.Run(m))
}
