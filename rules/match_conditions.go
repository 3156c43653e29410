package rules

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
	"github.com/webhooklint/webhooklint/internal/celcheck"
)

// maxMatchConditions is the limit validateMatchConditions enforces.
const maxMatchConditions = 64

func init() {
	register(&Rule{
		Name:     "match-conditions",
		Summary:  "matchConditions the API server rejects: count, names, empty or uncompilable expressions, non-bool results",
		Severity: diag.Error,
		Category: Server,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "The API server validates every matchCondition when the configuration is created or changed: at most " +
				"64 per webhook, each with a unique qualified `name` and a non-empty `expression` that compiles with the " +
				"admission CEL environment and returns exactly `bool` (`dyn` is rejected too, so `object.spec.hostNetwork` " +
				"must be written `object.spec.hostNetwork == true`). Webhooks get `object`, `oldObject`, `request`, " +
				"`namespaceObject` and `authorizer`, but no `params` and no `variables`. A server of version 1.N compiles " +
				"new expressions with the CEL libraries of 1.N−1, so a function from a library introduced in 1.34 is " +
				"rejected by a 1.34 server and accepted from 1.35: the target is `--kube-version` (default 1.37; versions " +
				"outside 1.30–1.37 are checked as the nearest of the two). Expressions are compiled with the API server's " +
				"own compiler, so the message is the server's.",
			Fix: "Make names unique qualified names, compare dynamic fields explicitly so the result is `bool`, and use " +
				"only libraries the oldest API server you deploy to accepts (or raise `--kube-version`).",
			Sources: []string{
				docsWebhooks + "#matching-requests-matchconditions",
				srcValidation,
				srcCELCompile,
				docsKEP3716,
			},
		},
		Fixes: []FixDoc{{
			Name:          "unique-name",
			Title:         "make the matchCondition name unique",
			Applicability: diag.Safe,
			Why: "A matchCondition's name only identifies it in the API server's messages and metrics; two conditions " +
				"with one name are rejected, and giving the later one a new name (the name with `-2`, `-3`… appended, " +
				"one no other condition of the webhook has) keeps every expression and what it matches.",
		}},
		Check: checkMatchConditions,
	})
}

func checkMatchConditions(p *Pass) {
	if !hasMatchConditions(p.Config) {
		return // do not build a CEL environment for nothing
	}
	compiler := matchConditionCompiler(p.Settings)
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		path := w.FieldPath("matchConditions")
		var errs field.ErrorList
		if len(w.MatchConditions) > maxMatchConditions {
			errs = append(errs, field.TooMany(path, len(w.MatchConditions), maxMatchConditions))
		}
		names := sets.New[string]()
		for j, mc := range w.MatchConditions {
			// Made only for an error: most conditions have none.
			at := func(name string) *field.Path { return path.Index(j).Child(name) }
			if expr := strings.TrimSpace(mc.Expression); expr == "" {
				errs = append(errs, field.Required(at("expression"), ""))
			} else if res := compiler.Compile(expr); res.Err != nil {
				fe := res.FieldError(at("expression"))
				if minor, ok := compiler.MinimumKubeMinor(expr); ok {
					p.Emit(Finding{Severity: p.Rule().Severity, Path: fe.Field, Message: fmt.Sprintf(
						"%s (Kubernetes 1.%d compiles new expressions with the CEL libraries of 1.%d; this one needs 1.%d)",
						ConciseServerMessage(fe.Error()), compiler.KubeMinor(), compiler.KubeMinor()-1, minor)})
				} else {
					errs = append(errs, fe)
				}
			}
			errs = append(errs, validateConditionName(mc.Name, names, func() *field.Path { return at("name") })...)
		}
		taken := sets.New[string]()
		for _, mc := range w.MatchConditions {
			taken.Insert(mc.Name)
		}
		p.ReportFieldErrorsWith(errs, func(e *field.Error) *FieldFix { return uniqueNameFix(taken, e) })
	}
}

// uniqueNameFix renames the later of two matchConditions of one name: the
// name with the first free -N appended that is still a qualified name.
// taken holds the webhook's names and those given so far.
func uniqueNameFix(taken sets.Set[string], e *field.Error) *FieldFix {
	if e.Type != field.ErrorTypeDuplicate {
		return nil
	}
	name, _ := e.BadValue.(string)
	for n := 2; n <= taken.Len()+2; n++ {
		next := fmt.Sprintf("%s-%d", name, n)
		if !taken.Has(next) && len(validation.IsQualifiedName(next)) == 0 {
			taken.Insert(next)
			return &FieldFix{Fix: "unique-name", Message: fmt.Sprintf("rename it to %q", next),
				Edits: []FieldEdit{{Path: e.Field, Old: name, New: next}}}
		}
	}
	return nil
}

// validateConditionName checks a matchCondition's name as the API server
// does for webhooks and admission policies alike: required, a qualified
// name, unique among the conditions seen so far (names, which it extends).
func validateConditionName(name string, names sets.Set[string], at func() *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(at(), "")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(name) {
		errs = append(errs, field.Invalid(at(), name, msg))
	}
	if names.Has(name) {
		errs = append(errs, field.Duplicate(at(), name))
	}
	names.Insert(name)
	return errs
}

func hasMatchConditions(c *Config) bool {
	for i := range c.Webhooks {
		if len(c.Webhooks[i].MatchConditions) > 0 {
			return true
		}
	}
	return false
}

// matchConditionCompiler returns the compiler for the target version,
// clamped to the versions celcheck supports.
func matchConditionCompiler(s *Settings) *celcheck.Compiler {
	minor := min(max(s.KubeVersion.Minor, celcheck.MinKubeMinor), celcheck.MaxKubeMinor)
	if s.KubeVersion.Major > 1 {
		minor = celcheck.MaxKubeMinor
	}
	c, err := celcheck.For(minor)
	if err != nil {
		// Unreachable: minor was clamped into the supported range.
		panic(err)
	}
	return c
}
