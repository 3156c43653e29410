package rules

import (
	"fmt"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/webhooklint/webhooklint/diag"
)

func init() {
	register(&Rule{
		Name:     "object-selector-bypass",
		Summary:  "an enforcement webhook lets the object's author opt out through objectSelector labels, or skip an opt-in one",
		Severity: diag.Warning,
		Category: Practice,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "objectSelector is evaluated against the labels of the object in the request, and whoever " +
				"creates or updates an object chooses its labels. On a webhook that enforces something, an " +
				"objectSelector is therefore an opt-out held by the very person being checked.\n\n" +
				"Only **exclusions** (`DoesNotExist`, `NotIn`) on a validating webhook are reported, whatever " +
				"its failurePolicy: every object is checked unless its author adds the label, so this is a bypass " +
				"(warning). When an object of the same unit carries the excluded label (the project labels its " +
				"own objects so, for built-in objects or install ordering: aws-load-balancer-controller's " +
				"IngressClassParams skip its webhook), the exclusion is the project's design and is reported " +
				"as info: anyone else may still set the label. For rules that reach only cluster-scoped " +
				"resources the advice is matchConditions alone: a namespaceSelector cannot apply to them.\n\n" +
				"Not reported:\n\n" +
				"* A self-exclusion that skips only the project's own pods (`app NotIn [my-webhook]` where the " +
				"input's workloads in the backend's namespace carry `app: my-webhook`, or, without workloads in " +
				"the input, where the value names the Service the webhook calls): it is what lets the backend " +
				"come back (see self-deadlock).\n" +
				"* Exclusions on a mutating webhook: an opt-out label is the usual feature switch (sidecar " +
				"injectors such as Istio document `sidecar.istio.io/inject: \"false\"`).\n" +
				"* Inclusions (`matchLabels`, `In`, `Exists`) elsewhere: they mark the objects a feature applies to " +
				"(a credential Secret, an object Crossplane protects from deletion while it is in use). On a " +
				"fail-closed validating webhook that checks the creation or update of pods or of the workloads " +
				"that create them, an inclusion is an opt-in to an enforced check, and whoever writes the workload " +
				"opts out by leaving the label off: that is reported (warning). No public project was found shipping " +
				"such an opt-in on pods (its example is synthetic); the bypass it allows is the one reported for " +
				"Istio's validating webhook, which selects `istio.io/rev In [<revision>]`, so that a tenant skips " +
				"validation by leaving the label off (https://github.com/istio/istio/issues/50663). On a mutating webhook an opt-in " +
				"is the design (Istio's `sidecar.istio.io/inject`), and a fail-open webhook enforces nothing.\n\n" +
				"The `kubernetes.io/metadata.name` label of a Namespace is set by the API server, so selecting " +
				"namespaces by it is not a bypass.\n\n" +
				"A finding is located at the requirement it is about, so the message does not repeat it.",
			Fix: "Select or exempt objects by something their authors cannot set: a namespaceSelector on namespace labels " +
				"that only administrators may change (the namespace name label is set by the API server), or " +
				"matchConditions on `request.userInfo`. If label-based exemptions are required, protect the " +
				"label with a policy that restricts who may set it.",
			Sources: []string{
				docsWebhooks + "#matching-requests-objectselector",
				srcObjectMatcher,
				issueSelectorBypass,
				docsGoodPractices,
			},
		},
		Check: checkObjectSelectorBypass,
	})
}

func checkObjectSelectorBypass(p *Pass) {
	// Only validating webhooks are judged: on a mutating webhook a label is
	// the usual feature switch (sidecar injection). An opt-in selector is
	// judged only on fail-closed checks of workloads (enforcedWorkloads):
	// elsewhere it marks the objects a feature applies to.
	if p.Config.IsMutating() {
		return
	}
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		if selectorEmpty(w.ObjectSelector) {
			continue
		}
		path := w.FieldPath("objectSelector")
		reqs := selectorRequirements(w.ObjectSelector, path)
		if unsatisfiable(reqs) != "" || !reachesLabelledObjects(w) {
			continue // the selector never matches: selector-never-matches
		}
		namespacesOnly := onlyNamespaceObjects(w)
		for _, r := range reqs {
			if namespacesOnly && r.Key == "kubernetes.io/metadata.name" {
				continue // set by the API server, not by the author
			}
			if r.Operator == metav1.LabelSelectorOpIn || r.Operator == metav1.LabelSelectorOpExists {
				if what := enforcedWorkloads(w); what != "" {
					p.Reportf(r.Path, "%s checks only %s labeled %s; select by namespace",
						quoteWebhook(w), what, includedBy(r))
				}
				continue
			}
			if r.Operator != metav1.LabelSelectorOpDoesNotExist && r.Operator != metav1.LabelSelectorOpNotIn {
				continue
			}
			if excludesOwnPods(p.Input, w, r) {
				continue // the self-exclusion self-deadlock asks for
			}
			if who := ownLabel(p.Input, r); who != "" {
				// The project labels its own objects so (built-in objects,
				// install ordering): its design, worth knowing.
				p.ReportSeverity(diag.Info, r.Path, fmt.Sprintf("skips objects by its own label (on %s), which anyone can set; %s",
					who, exemptAdvice(w)))
				continue
			}
			// The header (or go vet's position) names the webhook, and the
			// finding's position the requirement.
			p.Reportf(r.Path, "skips objects by a label their authors can set; %s", exemptAdvice(w))
		}
	}
}

// excludesOwnPods reports whether an exclusion r skips only the webhook
// project's own pods, as a webhook must to let its backend come back
// (self-deadlock): every excluded value is a label value of a workload in
// the backend's namespace, or, when the input has none, the name of the
// Service the webhook calls (or its prefix: app=foo behind Service
// foo-webhook-service).
func excludesOwnPods(in *Inventory, w *Webhook, r labelRequirement) bool {
	ref := w.ClientConfig.Service
	if r.Operator != metav1.LabelSelectorOpNotIn || ref == nil || len(r.Values) == 0 {
		return false
	}
	var own []Workload
	for _, wl := range in.Workloads {
		if wl.Object.Namespace == ref.Namespace || wl.Object.Namespace == "" {
			own = append(own, wl)
		}
	}
	for _, v := range r.Values {
		ownValue := slices.ContainsFunc(own, func(wl Workload) bool { return wl.PodLabels[r.Key] == v })
		if len(own) == 0 {
			ownValue = v != "" && (ref.Name == v || strings.HasPrefix(ref.Name, v+"-"))
		}
		if !ownValue {
			return false
		}
	}
	return true
}

// ownLabel names an object of the unit that carries a label the
// exclusion r skips ("" if none): the project's manifests set it.
func ownLabel(in *Inventory, r labelRequirement) string {
	if in == nil || len(in.Labels) == 0 {
		return ""
	}
	if r.Operator == metav1.LabelSelectorOpNotIn {
		for _, v := range r.Values {
			if who := in.Labels[r.Key+"="+v]; who != "" {
				return who
			}
		}
		return ""
	}
	// DoesNotExist: any value of the key; the first object in name order.
	var who string
	for kv, w := range in.Labels {
		if k, _, _ := strings.Cut(kv, "="); k == r.Key && (who == "" || w < who) {
			who = w
		}
	}
	return who
}

// onlyNamespaceObjects reports whether the webhook's rules reach nothing
// but namespaces, whose name label the API server sets.
func onlyNamespaceObjects(w *Webhook) bool {
	any := false
	for _, r := range w.Rules {
		t := ExpandRule(r)
		if t.Others {
			return false
		}
		for _, res := range t.Builtin {
			if !res.IsNamespace() {
				return false
			}
			any = true
		}
	}
	return any
}

// exemptAdvice names the safer ways to exempt objects. namespaceSelector
// does nothing for cluster-scoped resources, so it is only offered when
// the rules reach namespaced ones.
func exemptAdvice(w *Webhook) string {
	if _, clusterOnly := clusterScopedOnly(w.Rules); clusterOnly {
		return "exempt by userInfo in matchConditions"
	}
	return "exempt by namespace or userInfo"
}

// workloadResources are the objects whose authors write the pod template a
// security check judges: an opt-in label on them is chosen by the person
// checked.
var workloadResources = map[string]bool{
	"pods": true, "deployments.apps": true, "statefulsets.apps": true, "daemonsets.apps": true,
	"replicasets.apps": true, "jobs.batch": true, "cronjobs.batch": true, "replicationcontrollers": true,
}

// enforcedWorkloads names the workload resources a fail-closed validating
// webhook checks on create or update ("pods, deployments.apps"), or ""
// when it checks none: an opt-in selector there lets any author skip an
// enforced check. Elsewhere an inclusion marks what a feature applies to
// (credential Secrets, crossplane.io/in-use deletion protection).
func enforcedWorkloads(w *Webhook) string {
	if !w.FailsClosed() {
		return ""
	}
	var names []string
	for _, r := range w.Rules {
		for _, res := range ExpandRule(r).Builtin {
			writes := slices.Contains(res.Operations, admissionv1.Create) || slices.Contains(res.Operations, admissionv1.Update)
			if name := res.String(); res.Subresource == "" && workloadResources[name] && writes && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	slices.SortFunc(names, func(a, b string) int { // pods first, the rest by name
		if (a == "pods") != (b == "pods") {
			if a == "pods" {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	if len(names) > 2 {
		return fmt.Sprintf("%s and %d more kinds", names[0], len(names)-1)
	}
	return strings.Join(names, ", ")
}

// includedBy describes the objects an inclusion requirement selects.
func includedBy(r labelRequirement) string {
	if r.Operator == metav1.LabelSelectorOpExists || len(r.Values) == 0 {
		return r.Key
	}
	return r.Key + "=" + strings.Join(r.Values, "|")
}
