package rules

import (
	"fmt"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"

	"github.com/webhooklint/webhooklint/diag"
)

// Resources the API server never sends to webhooks registered through the
// API (webhook-facts C01): admission configuration itself, so that no
// webhook can lock the door to its own repair. Static manifest webhooks
// (names ending in .static.k8s.io, C18) do see them.
var admissionConfigResources = []string{
	"mutatingadmissionpolicies",
	"mutatingadmissionpolicybindings",
	"mutatingwebhookconfigurations",
	"validatingadmissionpolicies",
	"validatingadmissionpolicybindings",
	"validatingwebhookconfigurations",
}

// Virtual authentication and authorization reviews (C02): excluded from
// every webhook from Kubernetes 1.37 (ExcludeAdmissionWebhookVirtualResources,
// kubernetes/kubernetes#140019), sent before.
var virtualReviewResources = map[string][]string{
	"authentication.k8s.io": {"selfsubjectreviews", "tokenreviews"},
	"authorization.k8s.io": {"localsubjectaccessreviews", "selfsubjectaccessreviews",
		"selfsubjectrulesreviews", "subjectaccessreviews"},
}

// virtualReviewsExcludedSince is the first minor version that excludes them.
const virtualReviewsExcludedSince = 37

const staticConfigSuffix = ".static.k8s.io"

func init() {
	register(&Rule{
		Name:     "never-sent-resources",
		Summary:  "rules name resources the API server never sends to admission webhooks",
		Severity: diag.Warning,
		Category: Practice,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "The API server never calls webhooks registered through the API for admission " +
				"configuration objects — ValidatingWebhookConfigurations, MutatingWebhookConfigurations, " +
				"ValidatingAdmissionPolicies, MutatingAdmissionPolicies and their bindings — so that a " +
				"broken webhook can always be repaired or removed. From Kubernetes 1.37 it also skips the " +
				"virtual authentication and authorization reviews (TokenReview, SelfSubjectReview and the " +
				"four SubjectAccessReview kinds) for every webhook. A rule naming them has no effect: the " +
				"policy it seems to enforce is not enforced.\n\n" +
				"Before 1.37 the reviews *are* sent, and intercepting them is dangerous instead: a webhook " +
				"that is down, slow or wrong on TokenReview or SubjectAccessReview breaks authentication " +
				"and authorization of the whole cluster, including the requests needed to repair it. With " +
				"`--kube-version` below 1.37 the rule reports that.\n\n" +
				"Rules that name a review resource explicitly, without wildcards, already get the API " +
				"server's own warning on 1.37 (rule `excluded-resources`); this rule covers the other " +
				"spellings (`apiGroups: [\"*\"]`, `resources: [\"*\"]` in the review groups, `tokenreviews/*`) " +
				"and the admission configuration kinds, which the server accepts silently.",
			Fix: "Remove the resources from the rule (and the rule if nothing is left). To guard admission " +
				"configuration use RBAC or a ValidatingAdmissionPolicy; never intercept TokenReviews or " +
				"SubjectAccessReviews on clusters older than 1.37.",
			Sources: []string{
				docsWebhooks + "#matching-requests-rules",
				srcRulesMatcher,
				srcExclusion,
				prExcludeReviews,
				issueAuthnReviews,
				docsGoodPractices,
			},
		},
		Check: checkNeverSentResources,
	})
}

func checkNeverSentResources(p *Pass) {
	static := strings.HasSuffix(p.Config.Meta.Name, staticConfigSuffix)
	excludesReviews := p.Settings.KubeVersion.AtLeast(virtualReviewsExcludedSince)
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		for j, r := range w.Rules {
			path := w.FieldPath("rules").Index(j)
			var dead, sentDangerous []string
			if !static {
				dead = append(dead, namedResources(r.Rule, GroupName, admissionConfigResources, false)...)
			}
			for _, group := range sortedKeys(virtualReviewResources) {
				named := namedResources(r.Rule, group, virtualReviewResources[group], excludesReviews)
				if excludesReviews {
					dead = append(dead, named...)
				} else {
					sentDangerous = append(sentDangerous, named...)
				}
			}
			if len(dead) > 0 {
				fix := "remove " + itThem(len(dead))
				if ruleOnlyNames(r, static, excludesReviews) {
					fix = "remove the rule" // it has no effect
				}
				first := dead[0]
				if len(dead) > 1 {
					first += fmt.Sprintf(" and %d more", len(dead)-1)
				}
				p.Reportf(path, "%s %s never sent to webhooks; %s", first, isAre(len(dead)), fix)
			}
			if len(sentDangerous) > 0 {
				p.Reportf(path, "%s %s sent to admission webhooks on Kubernetes %s (excluded only from 1.%d), so a "+
					"failing webhook breaks authentication or authorization; remove %s from the rule",
					listNames(sentDangerous, 1), isAre(len(sentDangerous)), p.Settings.KubeVersion,
					virtualReviewsExcludedSince, itThem(len(sentDangerous)))
			}
		}
	}
}

// namedResources lists, as resource.group, the members of known (all in
// group) that rule r names: the group literally or as "*", together with a
// resource entry whose resource part is literally the member, or "*" with
// the group named literally (the whole group). "*" in both says nothing
// about these resources in particular and is left to other rules.
// serverWarns drops the pairs the API server's own warning (W1) already
// reports: literal group and literal resource, no "*" in either list.
func namedResources(r admissionv1.Rule, group string, known []string, serverWarns bool) []string {
	literalGroup := slices.Contains(r.APIGroups, group)
	if !literalGroup && !slices.Contains(r.APIGroups, "*") {
		return nil
	}
	// What the API server's warning W1 (rule excluded-resources) reports.
	var serverCovered []string
	if serverWarns && literalGroup && !slices.Contains(r.APIGroups, "*") && !slices.Contains(r.Resources, "*") {
		for _, k := range known {
			if slices.Contains(r.Resources, k) {
				serverCovered = append(serverCovered, k)
			}
		}
	}
	var out []string
	add := func(res string) {
		gr := res + "." + group
		if !slices.Contains(serverCovered, res) && !slices.Contains(out, gr) {
			out = append(out, gr)
		}
	}
	for _, entry := range r.Resources {
		res, _, _ := strings.Cut(entry, "/")
		switch {
		case res == "*" && literalGroup:
			for _, k := range known {
				add(k)
			}
		case slices.Contains(known, res):
			add(res)
		}
	}
	slices.Sort(out)
	return out
}

// ruleOnlyNames reports whether everything r can match (per the built-in
// resources table) is never sent, so the whole rule is dead. A rule that
// can reach custom resources ("*" or a group that is not built in) is not.
func ruleOnlyNames(r admissionv1.RuleWithOperations, static, excludesReviews bool) bool {
	t := ExpandRule(r)
	if t.Others || len(t.Builtin) == 0 {
		return false
	}
	for _, b := range t.Builtin {
		dead := (!static && b.Group == GroupName && slices.Contains(admissionConfigResources, b.Resource)) ||
			(excludesReviews && slices.Contains(virtualReviewResources[b.Group], b.Resource))
		if !dead {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func itThem(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}
