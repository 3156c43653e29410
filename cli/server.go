package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/webhooklint/webhooklint/internal/cliflag"
	"github.com/webhooklint/webhooklint/lint"
	"github.com/webhooklint/webhooklint/lsp"
	"github.com/webhooklint/webhooklint/rules"
)

const serverUsage = `Usage: webhooklint server [--stdio]

A language server (LSP 3.17) on standard input and output: editors show
the findings of the buffers they have open, unsaved text included, with
the nearest .webhooklint.yaml applied (docs/editors.md).

`

// Server runs `webhooklint server`. It has the shape RegisterSubcommand
// takes.
func Server(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := serverFlags()
	if err := cliflag.Parse(fs, args); err != nil {
		if errors.Is(err, cliflag.ErrHelp) {
			fmt.Fprint(stdout, serverUsage)
			cliflag.PrintFlags(stdout, fs)
			return ExitOK
		}
		fmt.Fprintln(stderr, cliflag.UsageError("webhooklint server", err))
		return ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, cliflag.UsageError("webhooklint server", fmt.Errorf("it takes no paths: the editor sends the files")))
		return ExitUsage
	}
	offline()
	return lsp.Serve(stdin, stdout, lsp.Config{Setup: serverSetup, Version: version()})
}

func serverFlags() *pflag.FlagSet {
	fs := pflag.NewFlagSet("server", pflag.ContinueOnError)
	// Clients that start servers with --stdio get what they asked for.
	fs.Bool("stdio", true, "talk LSP on standard input and output (the only transport)")
	return fs
}

// ServerCommand describes `webhooklint server` for shell completion.
func ServerCommand() cliflag.Command {
	return cliflag.Command{Path: "server", Flags: serverFlags()}
}

// serverSetup is what a run of the command line with no flags does for
// files under the configuration file path ("" for none).
func serverSetup(path string) (*lsp.Setup, error) {
	var msgs bytes.Buffer
	rc := &runContext{opts: &lint.Options{Settings: rules.DefaultSettings()}, stdout: io.Discard, stderr: &msgs}
	if path != "" {
		if err := applyConfig(rc, newFlagSet(&options{}), path); err != nil {
			var done exitNow
			if errors.As(err, &done) {
				err = errors.New(strings.TrimSpace(msgs.String()))
			}
			return nil, err
		}
	}
	return &lsp.Setup{Lint: *rc.opts, Sources: rc.sources}, nil
}
