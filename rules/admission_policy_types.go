package rules

import (
	"strings"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/openapi"
)

func init() {
	register(&Rule{
		Name:     "admission-policy-types",
		Summary:  "validating policy expressions that do not type-check against the kinds the policy matches",
		Severity: diag.Warning,
		Category: Practice,
		Since:    "0.2.0",
		Doc: Doc{
			Why: "The API server creates a ValidatingAdmissionPolicy whose expressions only compile with `object` " +
				"typed as `dyn`. Afterwards the controller manager type-checks each validation and messageExpression " +
				"against the schema of every kind `matchConstraints` matches (and `params` against `paramKind`'s " +
				"schema) and writes what fails into `status.typeChecking`, where nobody looks: a misspelled field or " +
				"a comparison of a string with a number then fails at admission time, and with `failurePolicy: Fail` " +
				"denies the request. webhooklint runs the server's type checking (k8s.io/apiserver's " +
				"`validating.TypeChecker`, on the server's own CEL compiler and environment) before the policy is " +
				"installed, with the schemas of the built-in kinds " +
				"(from the embedded OpenAPI of the target version) and of the unit's CustomResourceDefinitions, and " +
				"reports its warnings at the expression, in the checker's words (what `status.typeChecking` would " +
				"hold: the kind, then the error); the fix is in that expression, or in `matchConstraints`.",
			Fix: "Use the field names and types of the matched kinds' schemas (`kubectl explain`), or narrow " +
				"`matchConstraints` to the kinds the expression is written for.",
			Sources: []string{
				docsVAP + "#type-checking",
				apiserverSource + "pkg/admission/plugin/policy/validating/typechecking.go",
			},
		},
		CheckPolicy: checkAdmissionPolicyTypes,
	})
}

func checkAdmissionPolicyTypes(p *Pass) {
	vap := p.Policy.Validating
	if vap == nil || len(vap.Spec.Validations) == 0 {
		return
	}
	// What the server rejects is admission-policy's; the type checker
	// would only repeat it.
	if len(validatingPolicyErrors(p)) > 0 {
		return
	}
	if p.Settings.TypeCheckPolicy == nil {
		return // a front end without the checker (the go vet analyzer: no policies)
	}
	cat, err := openapi.Builtin()
	if err != nil {
		return // the embedded data is broken: a build problem, caught by the package's tests
	}
	types := &unitTypes{cat: cat, crds: p.Input.CRDs}
	for _, w := range p.Settings.TypeCheckPolicy(vap, types) {
		// The checker's own words, as status.typeChecking would hold them;
		// the doc says what to fix.
		p.Emit(Finding{Path: w.FieldRef, Message: typeCheckMessage(w.Warning) + "; fix it"})
	}
}

// typeCheckMessage is the checker's warning on one line: one
// "<kind>: <error>" entry per kind it failed for, without the source
// excerpts.
func typeCheckMessage(warning string) string {
	var parts []string
	for _, line := range strings.Split(ConciseServerMessage(warning), "; ") {
		if line = strings.TrimSpace(line); line != "" {
			parts = append(parts, line)
		}
	}
	return strings.Join(parts, "; ")
}
