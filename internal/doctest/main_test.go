package doctest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/webhooklint/webhooklint/cli"
	"github.com/webhooklint/webhooklint/cluster"
	"github.com/webhooklint/webhooklint/internal/cache/cachetest"
)

// TestMain runs this test binary as webhooklint when it is called by that
// name, wired as cmd/webhooklint's main wires the command line.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "webhooklint" {
		cli.RegisterSubcommand("cluster", cluster.Command, cluster.Commands()...)
		cli.RegisterSubcommand("simulate", cli.Simulate, cli.SimulateCommand())
		os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	// The runs get a cache folder of their own, never the user's.
	os.Exit(cachetest.Run(m))
}
