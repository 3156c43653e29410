package rules

import (
	"fmt"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/webhooklint/webhooklint/diag"
)

var _ = register(&Rule{
	Name:     "namespace-selector-live",
	Summary:  "namespaceSelector does not exclude kube-system or the webhook's own namespace, judged by the cluster's real namespace labels",
	Severity: diag.Warning,
	Category: Live,
	Since:    "0.1.0",
	Doc: Doc{
		Why: "A webhook that intercepts requests in `kube-system` can take the control plane down with it when " +
			"its backend is unavailable, and a fail-closed webhook that intercepts its own namespace can " +
			"block the creation of its own pods (a self-deadlock). Whether a `namespaceSelector` excludes a " +
			"namespace depends on that namespace's actual labels, which only the cluster knows: an " +
			"exclusion keyed on a label nobody set (`control-plane: \"true\"`) excludes nothing. The rule " +
			"evaluates each selector against the labels the live namespaces carry. Requests for " +
			"cluster-scoped resources are never filtered by namespaceSelector, so webhooks whose rules " +
			"only name cluster-scoped resources are not judged. A webhook that fails closed on what kube-system needs, " +
			"or on its own backend's requests, has that finding from system-critical-scope or self-deadlock (as in " +
			"the file mode), not a second one from this rule.",
		Fix: "Exclude namespaces by the label the API server sets on every namespace, " +
			"`kubernetes.io/metadata.name`, or add the label your selector relies on to the namespace.",
		Sources: []string{
			srcNamespaceMatcher,
			srcNamespaceStrategy,
			docsWebhooks + "#avoiding-deadlocks-in-self-hosted-webhooks",
		},
	},
	Options: []Option{{
		Name:    "namespaces",
		Doc:     "Namespaces a webhook should not intercept, besides its own.",
		Default: []string{"kube-system"},
	}},
	Check: checkNamespaceSelectorLive,
})

func checkNamespaceSelectorLive(p *Pass) {
	live := p.Input.Live
	if live == nil || live.Namespaces == nil {
		return
	}
	protected := p.StringsOption("namespaces")
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		if !mayMatchNamespaced(w.Rules, live.Served) {
			continue
		}
		sel := labels.Everything()
		path := w.Path()
		if w.NamespaceSelector != nil {
			s, err := metav1.LabelSelectorAsSelector(w.NamespaceSelector)
			if err != nil {
				continue // an invalid selector is reported by the selector rule
			}
			sel = s
			path = path.Child("namespaceSelector")
		}
		own := ""
		if ref := w.ClientConfig.Service; ref != nil {
			own = ref.Namespace
		}
		names := slices.Clone(protected)
		if own != "" && !slices.Contains(names, own) {
			names = append(names, own)
		}
		// A webhook that fails closed on kube-system, or on its own pods,
		// has that finding from system-critical-scope or self-deadlock,
		// which the file mode reports too: one cause, one finding.
		critical := w.FailsClosed() && len(w.Rules) > 0 && systemCritical(p, w).msg != ""
		deadlock := own != "" && selfDeadlocks(p, w)
		for _, name := range names {
			ns, _ := live.Namespace(name)
			if ns == nil || !sel.Matches(labels.Set(ns.Labels)) || (name == own && deadlock) || (name == "kube-system" && critical) {
				continue
			}
			what := fmt.Sprintf("namespace %q", name)
			risk := "an outage of the webhook blocks or delays requests there"
			if name == own {
				what = fmt.Sprintf("the webhook's own namespace %q", name)
				risk = "its own pods pass through it"
				if w.FailsClosed() {
					risk = "failing closed, it can block its own recovery"
				}
			}
			selText := "namespaceSelector"
			switch {
			case w.NamespaceSelector == nil:
				selText = "no namespaceSelector"
			case len(w.NamespaceSelector.MatchLabels) == 0 && len(w.NamespaceSelector.MatchExpressions) == 0:
				// What the API server stores for an omitted selector.
				selText = "namespaceSelector {}"
			}
			// The label the server sets says nothing a reader does not
			// know from the name: only other labels are shown.
			set := labels.Set{}
			for k, v := range ns.Labels {
				if k != LabelMetadataName {
					set[k] = v
				}
			}
			if len(set) > 0 {
				what += " (labels: " + set.String() + ")"
			}
			p.Reportf(path, "%s matches %s: %s; exclude it", selText, what, risk)
		}
	}
}

// mayMatchNamespaced reports whether any rule can match a request that the
// namespaceSelector filters: one for a namespaced resource, or for a
// namespace itself. With discovery at hand the resources named are looked
// up; without it only the rule's scope tells.
func mayMatchNamespaced(rs []admissionv1.RuleWithOperations, served []ServedResource) bool {
	for _, r := range rs {
		if EffectiveScope(r.Rule) == admissionv1.ClusterScope {
			for _, res := range r.Resources {
				if res == "*" || res == "namespaces" || strings.HasPrefix(res, "namespaces/") {
					return true
				}
			}
			continue
		}
		if served == nil {
			return true
		}
		for _, s := range served {
			if !anyMatches(r.APIGroups, s.Group) || !anyMatches(r.APIVersions, s.Version) {
				continue
			}
			base, _, _ := strings.Cut(s.Resource, "/")
			for _, res := range r.Resources {
				rb, _, _ := strings.Cut(res, "/")
				if (rb == "*" || rb == base) && (s.Namespaced || base == "namespaces") {
					return true
				}
			}
		}
	}
	return false
}

// anyMatches reports whether a rule list (with "*") contains v.
func anyMatches(list []string, v string) bool {
	return slices.Contains(list, "*") || slices.Contains(list, v)
}
