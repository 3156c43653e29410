package engine

import (
	"fmt"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/rules"
)

// LoweredNote is the one note at the first of n findings reported at info
// because of where they are (a kustomize base, an archived OLM bundle,
// markers that generate a base): why, how many, and how to state
// otherwise (advice), as a finding of rule.
func LoweredNote(rule string, first diag.Diagnostic, n int, why, advice string) diag.Diagnostic {
	what := "1 finding"
	if n > 1 {
		what = fmt.Sprintf("%d findings", n)
	}
	return diag.Diagnostic{
		Span:     first.Span,
		Severity: rules.MustLookup(rule).Severity, Rule: rule,
		Message: why + ": " + what + " at info; " + advice,
		Object:  first.Object, Origin: first.Origin,
	}
}
