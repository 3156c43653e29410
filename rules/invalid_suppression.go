package rules

import "github.com/webhooklint/webhooklint/diag"

// InvalidSuppressionRule names the finding for a suppression that is malformed or forbidden.
const InvalidSuppressionRule = "invalid-suppression"

func init() {
	register(&Rule{
		Name:     InvalidSuppressionRule,
		Summary:  "a suppression that names no rule, an unknown rule, gives no reason, or is inline where inline suppressions are forbidden",
		Severity: diag.Error,
		Category: Input,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "A suppression silences a finding someone judged safe; without a reason the next reader cannot tell " +
				"whether that judgement still holds, and a misspelled rule name silences nothing.",
			Fix: "Write `# webhooklint:ignore <rule>[,<rule>] -- <reason>` on the line above the YAML node it applies to " +
				"(above the first key of the object for the whole object), or the object annotation " +
				"`webhooklint.io/ignore: \"<rule>: <reason>\"`, which survives Helm and kustomize rendering. " +
				"Where the run forbids inline suppressions (`--no-inline-suppressions`, `inlineSuppressions: false`), " +
				"fix the finding or accept it under `suppressions` in the configuration file.",
		},
	})
}
