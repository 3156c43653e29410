package rules

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/webhooklint/webhooklint/diag"
)

var _ = register(&Rule{
	Name:     "provider-admissions-enforcer",
	Summary:  "the namespaceSelector of these webhooks will be rewritten by AKS's admissions enforcer (--provider aks)",
	Severity: diag.Info,
	Category: Practice,
	Since:    "0.2.0",
	Doc: Doc{
		Why: "On AKS, an *Admissions Enforcer* in the managed control plane edits every webhook configuration " +
			"that does not opt out: it adds `namespaceSelector` expressions on the `control-plane` label and " +
			"`kubernetes.azure.com/managedby NotIn [aks]`, so that webhooks never see kube-system and AKS's own " +
			"namespaces. Two things follow. The stored object differs from the manifest, so whatever applies " +
			"the manifest again — an operator that reconciles its own webhook configuration, Argo CD, Flux, " +
			"`kubectl apply --server-side` — sees drift and writes it back, and the two fight forever: " +
			"log floods, API load and instability (Azure/AKS#4002, kyverno/kyverno#9947, kedacore/keda#4813, " +
			"openkruise/charts#155). And a webhook meant to cover system namespaces silently does not.\n\n" +
			"The rule runs only with `--provider aks`. It is silent for configurations that carry the opt-out " +
			"(`admissions.enforcer/disabled: \"true\"` as a label or annotation) and for webhooks whose " +
			"namespaceSelector already holds the enforcer's expressions (then its edit changes nothing).",
		Fix: "Annotate the configuration with `admissions.enforcer/disabled: \"true\"` and exclude kube-system " +
			"yourself, or write the enforcer's expressions into every webhook's namespaceSelector so that its " +
			"edit is a no-op.",
		Sources: []string{
			"https://learn.microsoft.com/azure/aks/faq#can-admission-controller-webhooks-impact-kube-system-and-internal-aks-namespaces",
			"https://github.com/Azure/AKS/issues/4002",
			"https://github.com/Azure/AKS/issues/1771",
			"https://github.com/kyverno/kyverno/issues/9947",
			"https://github.com/kedacore/keda/issues/4813",
			"https://github.com/openkruise/charts/issues/155",
		},
	},
	Check: checkAdmissionsEnforcer,
})

const enforcerOptOut = "admissions.enforcer/disabled"

func checkAdmissionsEnforcer(p *Pass) {
	if p.provider() != AKS {
		return
	}
	m := p.Config.Meta
	if strings.EqualFold(m.Annotations[enforcerOptOut], "true") || strings.EqualFold(m.Labels[enforcerOptOut], "true") {
		return
	}
	var rewritten []string
	var first *Webhook
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		if hasEnforcerExpressions(w.NamespaceSelector) {
			continue
		}
		if first == nil {
			first = w
		}
		rewritten = append(rewritten, quoteWebhook(w))
	}
	if first == nil {
		return
	}
	// One finding per configuration: the opt-out is one annotation on it.
	path := first.FieldPath("namespaceSelector")
	if first.NamespaceSelector == nil {
		path = first.Path()
	}
	which := rewritten[0]
	if len(rewritten) > 1 {
		which = fmt.Sprintf("%d webhooks", len(rewritten))
	}
	p.Emit(Finding{Severity: p.rule.Severity, Path: PathString(path), AtKey: first.NamespaceSelector != nil, Message: fmt.Sprintf(
		"AKS's admissions enforcer will add namespaceSelector expressions to %s, and tools re-applying this manifest fight it; "+
			"annotate %s: \"true\" or write them in", which, enforcerOptOut)})
}

// hasEnforcerExpressions reports whether a selector already excludes what
// the enforcer adds: the control-plane label and AKS-managed namespaces.
func hasEnforcerExpressions(sel *metav1.LabelSelector) bool {
	if sel == nil {
		return false
	}
	controlPlane, managed := false, false
	for _, e := range sel.MatchExpressions {
		switch {
		case e.Key == "control-plane" && (e.Operator == metav1.LabelSelectorOpDoesNotExist ||
			e.Operator == metav1.LabelSelectorOpNotIn && slices.Contains(e.Values, "true")):
			controlPlane = true
		case e.Key == "kubernetes.azure.com/managedby" && e.Operator == metav1.LabelSelectorOpNotIn && slices.Contains(e.Values, "aks"):
			managed = true
		}
	}
	return controlPlane && managed
}
