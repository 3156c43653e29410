package rules

import (
	"slices"

	admissionv1 "k8s.io/api/admissionregistration/v1"

	"github.com/webhooklint/webhooklint/diag"
)

func init() {
	register(&Rule{
		Name:     "namespace-selector-no-effect",
		Summary:  "namespaceSelector on a webhook whose rules only match cluster-scoped resources",
		Severity: diag.Warning,
		Category: Practice,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "Requests for cluster-scoped resources (nodes, persistentvolumes, clusterroles, " +
				"certificatesigningrequests, custom resources with `scope: Cluster`…) carry no namespace, and the " +
				"API server never skips a webhook for them because of its namespaceSelector. Only namespaces " +
				"themselves are matched against it (with their own labels). A namespaceSelector on a webhook " +
				"whose rules only match such resources therefore has no effect: whatever it was meant to " +
				"exclude (often kube-system) is still sent to the webhook.",
			Fix: "Remove the namespaceSelector, and narrow the webhook with an objectSelector or " +
				"matchConditions (on the object or on `request.userInfo`) instead.",
			Sources: []string{
				docsWebhooks + "#matching-requests-namespaceselector",
				srcNamespaceMatcher,
			},
		},
		Check: checkNamespaceSelectorNoEffect,
	})
}

func checkNamespaceSelectorNoEffect(p *Pass) {
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		if selectorEmpty(w.NamespaceSelector) {
			continue
		}
		// The rules name the resources.
		if _, ok := clusterScopedOnly(w.Rules); ok {
			reportAtKey(p, 0, w.FieldPath("namespaceSelector"), "%s: namespaceSelector never applies to cluster-scoped "+
				"resources; remove it, use objectSelector or matchConditions", quoteWebhook(w))
		}
	}
}

// clusterScopedOnly reports whether every request the rules can match is
// for a cluster-scoped resource other than namespaces, and names them. Rules
// that match nothing are ignored; rules reaching resources of unknown scope
// (custom groups without scope Cluster) make the answer false.
func clusterScopedOnly(rules []admissionv1.RuleWithOperations) ([]string, bool) {
	var names []string
	for _, r := range rules {
		t := ExpandRule(r)
		for _, res := range t.Builtin {
			if res.Namespaced || res.IsNamespace() {
				return nil, false
			}
			base := res
			base.Subresource = ""
			if n := base.String(); !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
		if t.Others {
			if EffectiveScope(r.Rule) != admissionv1.ClusterScope || slices.Contains(r.Resources, "namespaces") {
				return nil, false
			}
			for _, g := range r.APIGroups {
				if IsBuiltinGroup(g) {
					continue
				}
				for _, res := range r.Resources {
					n := res + "." + g
					if g == "*" {
						n = res + " in any other group"
					}
					if !slices.Contains(names, n) {
						names = append(names, n)
					}
				}
			}
		}
	}
	return names, len(names) > 0
}
