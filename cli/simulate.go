package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/cliflag"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/simulate"
)

// Simulate runs `webhooklint simulate [flags] [PATH...]`: the admission
// chain the API server would run for one request, against the webhook
// configurations in the files. It has the shape RegisterSubcommand takes.
func Simulate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var f simulate.Flags
	kube := rules.DefaultKubeVersion
	fs := simulateFlags(&f, &kube)
	if err := cliflag.Parse(fs, args); err != nil {
		if errors.Is(err, cliflag.ErrHelp) {
			fmt.Fprint(stdout, simulateUsage)
			cliflag.PrintFlags(stdout, fs)
			return ExitOK
		}
		fmt.Fprintln(stderr, cliflag.UsageError("webhooklint simulate", err))
		return ExitUsage
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "webhooklint simulate: %v\n", err)
		return ExitUsage
	}
	if err := f.Check(); err != nil {
		return fail(err)
	}
	req, err := f.Spec.Resolve()
	if err != nil {
		return fail(err)
	}
	files, err := loadFiles(fs.Args(), stdin)
	if err != nil {
		return fail(err)
	}
	for _, file := range files {
		for _, d := range fileErrors(file) {
			fmt.Fprintf(stderr, "webhooklint simulate: %s:%d:%d: %s (skipped)\n", d.File, d.Line, d.Column, d.Message)
		}
	}
	inv := manifest.Inventory(files)
	chain := simulate.Simulate(inv.Configs, req, simulate.Options{KubeVersion: kube, NamespaceLabels: inv.NamespaceLabels})
	if len(inv.Configs) == 0 {
		fmt.Fprintln(stderr, "webhooklint simulate: note: no webhook configuration found in the input")
	}
	if f.Format == "json" {
		err = chain.WriteJSON(stdout)
	} else {
		err = chain.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "webhooklint simulate: writing output: %v\n", err)
		return ExitInternal
	}
	return chain.ExitCode()
}

const simulateUsage = `Usage: webhooklint simulate --operation OP --resource RESOURCE [flags] [PATH...]
       webhooklint cluster simulate …   (the same against a live cluster)

Prints the admission chain the API server runs for one request: the mutating
webhooks in order (with reinvocation), then the validating ones; for each,
whether it is called and why, its timeout, failure policy and side effects;
the worst-case latency and the outcome if a backend is down. PATHs are read
as by webhooklint (default: the current folder); Namespace objects found
there give namespace labels. Flags may come before or after the paths.

Exit status: 0 the API server cannot reject the request without a webhook
saying no; 1 it can (a fail-closed webhook is or may be called, so its backend
being down rejects the request, or the request is rejected outright: a
dry-run meeting side effects, a matchCondition error under failurePolicy
Fail); 2 usage error.

Flags:
`

// simulateFlags defines the flags of webhooklint simulate.
func simulateFlags(f *simulate.Flags, kube *rules.KubeVersion) *pflag.FlagSet {
	fs := cliflag.New("webhooklint simulate")
	f.Bind(fs)
	fs.Func("kube-version", "Kubernetes version of the API server to simulate, `MAJOR.MINOR` (default "+rules.DefaultKubeVersion.String()+")", func(s string) error {
		v, err := rules.ParseKubeVersion(s)
		if err != nil {
			return err
		}
		*kube = v
		return nil
	})
	return fs
}

// SimulateCommand describes webhooklint simulate for the completion scripts.
func SimulateCommand() cliflag.Command {
	var f simulate.Flags
	var kube rules.KubeVersion
	return cliflag.Command{Path: "simulate", Flags: simulateFlags(&f, &kube), Paths: true}
}

// loadFiles reads and parses the arguments the way linting does.
func loadFiles(args []string, stdin io.Reader) ([]*manifest.File, error) {
	sources, err := manifest.Expand(args, "")
	if err != nil {
		return nil, err
	}
	files := make([]*manifest.File, 0, len(sources))
	for _, s := range sources {
		data, err := manifest.Read(s, stdin)
		if err != nil {
			return nil, err
		}
		files = append(files, manifest.Parse(s.Name, data))
	}
	return files, nil
}

// fileErrors are the loader's errors that drop a document or a file: the
// simulation runs without them, so the user is told.
func fileErrors(f *manifest.File) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, d := range f.Diagnostics {
		if d.Severity == diag.Error {
			out = append(out, d)
		}
	}
	for _, doc := range f.Docs {
		if doc.Config != nil {
			continue
		}
		for _, d := range doc.Diagnostics {
			if d.Severity == diag.Error {
				out = append(out, d)
			}
		}
	}
	return out
}
