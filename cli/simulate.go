package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/pflag"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/cliflag"
	"github.com/webhooklint/webhooklint/manifest"
	"github.com/webhooklint/webhooklint/rules"
	"github.com/webhooklint/webhooklint/simulate"
	"github.com/webhooklint/webhooklint/source"
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
	units, err := source.Units(fs.Args(), stdin, "", nil, 0, source.Options{})
	if err != nil {
		return fail(err)
	}
	units = source.WithAdmissionObjects(units)
	answer := &simulate.Answer{Headed: len(units) > 1}
	for _, u := range units {
		if u.Problem != nil {
			fmt.Fprintf(stderr, "webhooklint simulate: %s: %v (skipped)\n", u.Label, u.Problem)
			continue
		}
		for _, file := range u.Files {
			for _, d := range fileErrors(file) {
				fmt.Fprintf(stderr, "webhooklint simulate: %s:%d:%d: %s (skipped)\n", d.File, d.Line, d.Column, d.Message)
			}
		}
		inv := manifest.Inventory(u.Files)
		if !slices.ContainsFunc(inv.Configs, func(c *rules.Config) bool { return len(c.Webhooks) > 0 }) && len(inv.Policies) == 0 {
			// Such as a patch file no kustomization uses (metadata and
			// no webhooks): its chain would be empty, and read as
			// "nothing intercepts this request".
			fmt.Fprintf(stderr, "webhooklint simulate: %s: no webhook and no admission policy, nothing to simulate (skipped)\n", u.Label)
			continue
		}
		// Each unit is one installation: its chain is its own.
		chain := simulate.Simulate(inv.Configs, req, simulate.Options{KubeVersion: kube, NamespaceLabels: inv.NamespaceLabels, Policies: inv.Policies})
		answer.Units = append(answer.Units, simulate.Unit{Label: u.Label, Chain: chain})
	}
	if len(answer.Units) == 0 {
		fmt.Fprintln(stderr, "webhooklint simulate: note: no webhook configuration or admission policy found in the input")
		answer = &simulate.Answer{Units: []simulate.Unit{{Chain: simulate.Simulate(nil, req, simulate.Options{KubeVersion: kube})}}}
	}
	if err := simulate.Write(stdout, f.Format, version(), answer); err != nil {
		fmt.Fprintf(stderr, "webhooklint simulate: writing output: %v\n", err)
		return ExitInternal
	}
	return answer.ExitCode()
}

const simulateUsage = `Usage: webhooklint simulate --operation OP --resource RESOURCE [flags] [PATH...]
       webhooklint cluster simulate …   (the same against a live cluster)

Prints the admission chain the API server runs for one request: the mutating
admission policies, the mutating webhooks in order (with reinvocation), the
validating admission policies, then the validating webhooks; for each webhook,
whether it is called and why, its timeout, failure policy and side effects; for
each policy binding, whether it applies and what its validations do; the
worst-case latency and the outcome if a backend is down. PATHs are read as by
webhooklint (default: the current folder); Namespace objects found there give
namespace labels. Flags may come before or after the paths.

Exit status: 0 the API server cannot reject the request without a webhook
saying no; 1 it can (a fail-closed webhook is or may be called, so its backend
being down rejects the request, or the request is rejected outright: a
dry-run meeting side effects, a matchCondition error under failurePolicy
Fail, a validating admission policy that denies); 2 usage error.

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

// fileErrors are the loader's errors in a file: what simulate skips.
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
