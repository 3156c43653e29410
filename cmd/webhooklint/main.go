// Command webhooklint lints Kubernetes admission webhook configurations.
package main

import (
	"os"

	"github.com/webhooklint/webhooklint/cli"
	"github.com/webhooklint/webhooklint/cluster"
	_ "github.com/webhooklint/webhooklint/internal/gcstart"    // the collector's target, before the heavy package inits
	_ "github.com/webhooklint/webhooklint/internal/indexstart" // the discovery index checked beside the package inits
)

func main() {
	cluster.ToolVersion = cli.ToolVersion()
	cli.RegisterSubcommand("cluster", cluster.Command, cluster.Commands()...)
	cli.RegisterSubcommand("simulate", cli.Simulate, cli.SimulateCommand())
	cli.RegisterSubcommand("server", cli.Server, cli.ServerCommand())
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
