package rules

import (
	"fmt"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/webhooklint/webhooklint/diag"
)

func init() {
	register(&Rule{
		Name:     "rule-syntax",
		Summary:  "rules need operations, apiGroups, apiVersions and resources, with wildcards used the way the API server allows",
		Severity: diag.Error,
		Category: Server,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "Every `rules[]` entry must list at least one operation, API group, API version and resource. " +
				"A `*` must stand alone in operations, apiGroups and apiVersions; in resources `*` excludes other " +
				"plain resources, `*/*` excludes everything else, and `x/*` or `*/y` exclude the `x/y` entries " +
				"they cover. The API server checks the resource wildcards while walking the list, so some lists " +
				"are accepted in one order and rejected in another: `[pods/log, pods/*]` and `[pods, \"*\"]` are " +
				"accepted, `[pods/*, pods/log]` and `[\"*\", pods]` are rejected. Such accepted lists are reported " +
				"as warnings: the covered entry is redundant, and an edit that merely reorders the list starts " +
				"failing on the server. Exact duplicates are accepted and reported as warnings too.",
			Fix: "Use `*` alone, or list the exact values. For resources, keep either the wildcard or the " +
				"entries it covers, never both; operations are `CREATE`, `UPDATE`, `DELETE`, `CONNECT` or `*`; " +
				"scope is `Cluster`, `Namespaced` or `*` (case-sensitive).",
			Sources: []string{
				srcValidation,
				docsWebhooks + "#matching-requests-rules",
			},
		},
		Check: checkRuleSyntax,
	})
}

var (
	supportedOperations = []admissionv1.OperationType{
		admissionv1.OperationAll, admissionv1.Connect, admissionv1.Create, admissionv1.Delete, admissionv1.Update,
	}
	supportedScopes = []admissionv1.ScopeType{admissionv1.AllScopes, admissionv1.ClusterScope, admissionv1.NamespacedScope}
)

func checkRuleSyntax(p *Pass) {
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		for j := range w.Rules {
			v := ruleVerdictOf(w, j)
			p.ReportFieldErrors(v.errs)
			for _, warn := range v.warnings {
				p.ReportSeverity(diag.Warning, warn.path, warn.msg)
			}
		}
	}
}

// ruleVerdict is what rule-syntax finds in one rules[] entry.
type ruleVerdict struct {
	errs     field.ErrorList
	warnings []ruleWarning
}

// ruleVerdicts holds ruleVerdictOf's results for the first webhooks by
// the entry's place and content, which a folder of configurations
// repeats; they are shared, and callers must not modify them.
var ruleVerdicts = contentMemo[ruleVerdict]{limit: 4096}

// ruleVerdictOf validates the webhook's j-th rule.
func ruleVerdictOf(w *Webhook, j int) ruleVerdict {
	r := &w.Rules[j]
	verdict := func() ruleVerdict {
		path := w.FieldPath("rules").Index(j)
		errs := validateRuleWithOperations(r, path)
		return ruleVerdict{errs, ruleOverlapWarnings(r, path, errs)}
	}
	return ruleVerdicts.atPlace(w, func(k *keyBuilder) {
		k.number(j)
		k.rules(w.Rules[j : j+1])
	}, verdict)
}

// validateRuleWithOperations follows the API server's validation of one
// rules[] entry, including the order in which it looks at resources.
func validateRuleWithOperations(r *admissionv1.RuleWithOperations, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	opsPath := path.Child("operations")
	if len(r.Operations) == 0 {
		errs = append(errs, field.Required(opsPath, ""))
	}
	if len(r.Operations) > 1 && slices.Contains(r.Operations, admissionv1.OperationAll) {
		errs = append(errs, field.Invalid(opsPath, r.Operations, "if '*' is present, must not specify other operations"))
	}
	for k, op := range r.Operations {
		if !slices.Contains(supportedOperations, op) {
			errs = append(errs, field.NotSupported(opsPath.Index(k), op, supportedOperations))
		}
	}

	groupsPath := path.Child("apiGroups")
	if len(r.APIGroups) == 0 {
		errs = append(errs, field.Required(groupsPath, ""))
	}
	if len(r.APIGroups) > 1 && slices.Contains(r.APIGroups, "*") {
		errs = append(errs, field.Invalid(groupsPath, r.APIGroups, "if '*' is present, must not specify other API groups"))
	}
	versionsPath := path.Child("apiVersions")
	if len(r.APIVersions) == 0 {
		errs = append(errs, field.Required(versionsPath, ""))
	}
	if len(r.APIVersions) > 1 && slices.Contains(r.APIVersions, "*") {
		errs = append(errs, field.Invalid(versionsPath, r.APIVersions, "if '*' is present, must not specify other API versions"))
	}
	for k, v := range r.APIVersions {
		if v == "" {
			errs = append(errs, field.Required(versionsPath.Index(k), ""))
		}
	}
	errs = append(errs, validateResources(r.Resources, path.Child("resources"))...)
	if r.Scope != nil && !slices.Contains(supportedScopes, *r.Scope) {
		errs = append(errs, field.NotSupported(path.Child("scope"), *r.Scope, supportedScopes))
	}
	return errs
}

// validateResources walks the list once, as the server does: an x/y entry
// is only rejected when x/* or */y came before it, and "*" only conflicts
// with a plain resource when the last plain entry is not "*" itself.
func validateResources(resources []string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(resources) == 0 {
		errs = append(errs, field.Required(path, ""))
	}
	wildcardSub := map[string]bool{} // x/*
	wildcardRes := map[string]bool{} // */y
	var hasDoubleWildcard, hasSingleWildcard, lastPlainIsResource bool
	for k, rs := range resources {
		if rs == "" {
			errs = append(errs, field.Required(path.Index(k), ""))
			continue
		}
		if rs == "*/*" {
			hasDoubleWildcard = true
		}
		if rs == "*" {
			hasSingleWildcard = true
		}
		res, sub, ok := strings.Cut(rs, "/")
		if !ok {
			// Assigned, not accumulated: this is the server's behavior.
			lastPlainIsResource = rs != "*"
			continue
		}
		if wildcardSub[res] {
			errs = append(errs, field.Invalid(path.Index(k), rs, fmt.Sprintf("if '%s/*' is present, must not specify %s", res, rs)))
		}
		if wildcardRes[sub] {
			errs = append(errs, field.Invalid(path.Index(k), rs, fmt.Sprintf("if '*/%s' is present, must not specify %s", sub, rs)))
		}
		if sub == "*" {
			wildcardSub[res] = true
		}
		if res == "*" {
			wildcardRes[sub] = true
		}
	}
	if len(resources) > 1 && hasDoubleWildcard {
		errs = append(errs, field.Invalid(path, resources, "if '*/*' is present, must not specify other resources"))
	}
	if hasSingleWildcard && lastPlainIsResource {
		errs = append(errs, field.Invalid(path, resources, "if '*' is present, must not specify other resources without subresources"))
	}
	return errs
}

type ruleWarning struct {
	path *field.Path
	msg  string
}

// ruleOverlapWarnings reports redundant entries in lists the server
// accepted: exact duplicates, and resources covered by a wildcard listed
// after them (the order the server tolerates). Lists that already have
// errors are left alone; their errors say what to fix.
func ruleOverlapWarnings(r *admissionv1.RuleWithOperations, path *field.Path, errs field.ErrorList) []ruleWarning {
	// Paths are made only for a list with errors or a finding: made for
	// every rule, they were garbage on units of thousands of
	// configurations.
	hasErrorUnder := func(list string) bool {
		if len(errs) == 0 {
			return false // the common case: no path to print
		}
		prefix := path.Child(list).String()
		return slices.ContainsFunc(errs, func(e *field.Error) bool {
			return e.Field == prefix || strings.HasPrefix(e.Field, prefix+"[")
		})
	}
	var out []ruleWarning
	ops := make([]string, len(r.Operations))
	for k, op := range r.Operations {
		ops[k] = string(op)
	}
	for _, list := range []struct {
		name   string
		values []string
	}{{"operations", ops}, {"apiGroups", r.APIGroups}, {"apiVersions", r.APIVersions}} {
		if hasErrorUnder(list.name) {
			continue
		}
		for k, dup := range duplicates(list.values) {
			out = append(out, ruleWarning{path.Child(list.name).Index(k),
				fmt.Sprintf("%q is listed twice in %s (first at index %d); remove the duplicate", list.values[k], list.name, dup)})
		}
	}

	if hasErrorUnder("resources") {
		return out
	}
	dups := duplicates(r.Resources)
	for k, rs := range r.Resources {
		if first, ok := dups[k]; ok {
			out = append(out, ruleWarning{path.Child("resources").Index(k),
				fmt.Sprintf("%q is listed twice in resources (first at index %d); remove the duplicate", rs, first)})
			continue
		}
		if cover, at := coveringWildcard(r.Resources, k); at >= 0 {
			out = append(out, ruleWarning{path.Child("resources").Index(k),
				fmt.Sprintf("%q is already matched by %q (resources[%d]), and rejected if listed after it; remove it",
					rs, cover, at)})
		}
	}
	return out
}

// duplicates maps the index of every repeated value to the index of its
// first occurrence.
func duplicates(values []string) map[int]int {
	first := map[string]int{}
	out := map[int]int{}
	for k, v := range values {
		if f, ok := first[v]; ok {
			out[k] = f
			continue
		}
		first[v] = k
	}
	return out
}

// coveringWildcard finds a later entry that already matches resources[k]:
// "*" for a plain resource, x/* or */y for x/y. It returns -1 if none.
func coveringWildcard(resources []string, k int) (string, int) {
	rs := resources[k]
	res, sub, hasSub := strings.Cut(rs, "/")
	for later := k + 1; later < len(resources); later++ {
		c := resources[later]
		switch {
		case !hasSub && rs != "*" && c == "*":
			return c, later
		case hasSub && sub != "*" && c == res+"/*":
			return c, later
		case hasSub && res != "*" && c == "*/"+sub:
			return c, later
		}
	}
	return "", -1
}
