package engine

import (
	"fmt"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/rules"
)

// InContext sets the level a finding's deployment context gives d, the
// diagnostic a front end made of f: on a kustomize base linted without
// its overlay (base) a finding on what the overlay changes is info, and
// so is one that holds only under an assumption (Finding.Assumes), which
// goes with a related location at (where the finding was before a front
// end moved it to its cause), so that the finding stays one line. Either
// marks d DependsOnOverlay: a severity override, meant for what is
// stated, does not raise it again (Selection.Select). The file linter,
// the editor server and the analyzer all call it, so that a finding has
// one level and one note whichever of them reports it.
func InContext(d *diag.Diagnostic, f rules.Finding, base bool, at diag.Span, path string) {
	if base && f.DependsOnOverlay {
		d.Severity, d.DependsOnOverlay = diag.Info, true
	}
	if f.Assumes != "" {
		d.Severity, d.DependsOnOverlay = diag.Info, true
		d.Related = append(d.Related, diag.Related{Span: at, Path: path, Message: f.Assumes})
	}
}

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
