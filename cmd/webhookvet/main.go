// Command webhookvet runs the webhooklint analyzer on Go packages, as a go
// vet tool or on its own:
//
//	go install github.com/webhooklint/webhooklint/cmd/webhookvet@latest
//	go vet -vettool=$(command -v webhookvet) ./...
//	webhookvet ./...            # the same, without go vet
//	webhookvet -fix ./...       # and apply the suggested fixes
//
// It reports problems in admission webhooks declared in Go (kubebuilder
// markers and admissionregistration/v1 literals). It runs only
// webhooklint: keep running plain go vet for the standard checks.
// Flags: -kube-version=1.N, -disable=rule,rule, plus the drivers' -json,
// -c=N, -fix and -diff. See docs/analyzer.md.
package main

import (
	"os"

	"golang.org/x/tools/go/analysis/singlechecker"

	"github.com/webhooklint/webhooklint/analyzer"
)

// singlechecker serves both uses: given one .cfg file (what go vet passes)
// it runs the vet-tool protocol (unitchecker); given packages, it loads
// them itself. The command line is checked first (flags.go): go vet starts
// the tool once per package, and singlechecker would print a bad flag
// value with the whole usage each time.
func main() {
	if code, done := preflight(os.Args[1:], os.Stdout, os.Stderr); done {
		os.Exit(code)
	}
	singlechecker.Main(analyzer.Analyzer)
}
