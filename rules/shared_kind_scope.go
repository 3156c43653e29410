package rules

import (
	"fmt"
	"slices"

	admissionv1 "k8s.io/api/admissionregistration/v1"

	"github.com/webhooklint/webhooklint/diag"
)

// sharedKinds are resources many controllers create, each with the field
// that tells whose an object is.
var sharedKinds = []struct {
	group, resource, kind, narrow string
}{
	{"", "services", "Service", "object.spec.type == 'LoadBalancer'"},
	{"networking.k8s.io", "ingresses", "Ingress", "object.spec.ingressClassName == '<your class>'"},
}

func init() {
	register(&Rule{
		Name:     "shared-kind-scope",
		Summary:  "a fail-closed webhook on every Service or Ingress blocks other controllers' objects while it is down",
		Severity: diag.Info,
		Category: Practice,
		Since:    "0.3.0",
		Doc: Doc{
			Why: "Services and Ingresses are created by many installers and controllers, most of which have " +
				"nothing to do with a given webhook: a load-balancer controller acts on `type: LoadBalancer` " +
				"Services, an ingress controller on its own class. A webhook whose rules take every Service (or " +
				"every Ingress) of every namespace and that fails closed rejects all of them while its backend " +
				"is down, so unrelated Helm releases, operators and cluster bootstrap fail " +
				"(kubernetes-sigs/aws-load-balancer-controller#4811). matchConditions on the field that says " +
				"whose the object is keep the webhook on its own objects and the rest of the cluster out of " +
				"its outages.\n\n" +
				"Whether the webhook acts on a subset is something only its code knows, so this is info.",
			Fix: "Add a matchCondition on the field that marks the webhook's own objects (`object.spec.type`, " +
				"`object.spec.ingressClassName`), an objectSelector on a label only they carry, or fail open.",
			Sources: []string{
				"https://github.com/kubernetes-sigs/aws-load-balancer-controller/issues/4811",
				"https://github.com/kubernetes-sigs/aws-load-balancer-controller/pull/4828",
				docsWebhooks + "#matching-requests-matchconditions",
			},
		},
		Check: checkSharedKindScope,
	})
}

func checkSharedKindScope(p *Pass) {
	// An ordinary namespace, carrying only its name label.
	var ordinary *Labels
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		if !w.FailsClosed() || len(w.MatchConditions) > 0 || !selectorEmpty(w.ObjectSelector) {
			continue
		}
		if ordinary == nil {
			ordinary = p.Input.AssumedNamespaceLabels("default")
		}
		for _, k := range sharedKinds {
			req := &Request{Operation: admissionv1.Create, Group: k.group, Version: "v1", Resource: k.resource,
				Namespace: "default", NamespaceLabels: ordinary, Object: KnownLabels(nil)}
			sim := w.Simulate(req)
			if sim.Outcome != Called || !namesResource(w.Rules[sim.Rule], k.group, k.resource) {
				continue
			}
			p.Reportf(w.FieldPath("rules").Index(sim.Rule), "%s",
				fmt.Sprintf("%s fails closed on every %s; narrow it with a matchCondition (%s)", quoteWebhook(w), k.kind, k.narrow))
		}
	}
}

// namesResource reports whether a rule names group/resource itself rather
// than matching it through "*" (those rules are about everything, which
// system-critical-scope judges).
func namesResource(r admissionv1.RuleWithOperations, group, resource string) bool {
	return slices.Contains(r.Resources, resource) &&
		(slices.Contains(r.APIGroups, group) || slices.Contains(r.APIGroups, "*"))
}
