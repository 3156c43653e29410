package rules

import "github.com/webhooklint/webhooklint/diag"

// UnusedSuppressionRule names the finding for a suppression that silences nothing.
const UnusedSuppressionRule = "unused-suppression"

func init() {
	register(&Rule{
		Name:     UnusedSuppressionRule,
		Summary:  "a suppression that silences nothing",
		Severity: diag.Warning,
		Category: Input,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "A suppression left behind after the problem was fixed (or attached to the wrong node) will silently " +
				"hide the next, unrelated finding of that rule. Reporting it keeps suppressions honest.",
			Fix: "Delete the suppression, or move it to the YAML node the finding is reported on.",
		},
	})
}
