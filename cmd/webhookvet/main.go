// Command webhookvet runs the webhooklint analyzer as a go vet tool:
//
//	go install github.com/webhooklint/webhooklint/cmd/webhookvet@latest
//	go vet -vettool=$(command -v webhookvet) ./...
//
// It reports problems in admission webhooks declared in Go (kubebuilder
// markers and admissionregistration/v1 literals). It runs only
// webhooklint: keep running plain go vet for the standard checks.
// Flags: -webhooklint.kube-version=1.N, -webhooklint.disable=rule,rule
// (go vet passes them on), plus the usual -json and -c=N.
package main

import (
	"golang.org/x/tools/go/analysis/unitchecker"

	"github.com/webhooklint/webhooklint/analyzer"
)

func main() { unitchecker.Main(analyzer.Analyzer) }
