package rules

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/webhooklint/webhooklint/diag"
)

func init() {
	register(&Rule{
		Name:     "object-selector-bypass",
		Summary:  "an enforcement webhook lets the object's author opt out through objectSelector labels",
		Severity: diag.Warning,
		Category: Practice,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "objectSelector is evaluated against the labels of the object in the request, and whoever " +
				"creates or updates an object chooses its labels. On a webhook that enforces something, an " +
				"objectSelector is therefore an opt-out held by the very person being checked.\n\n" +
				"Which cases are bypasses:\n\n" +
				"* **Exclusions** (`DoesNotExist`, `NotIn`) on a validating webhook, whatever its failurePolicy: " +
				"every object is checked unless its author adds the label. This is a bypass (warning). " +
				"Self-exclusions such as `app NotIn [my-webhook]`, meant to avoid a self-deadlock, are included: " +
				"anyone can put that label on their pod.\n" +
				"* **Exclusions on a mutating webhook that fails closed**: failing closed says the mutation must " +
				"not be skipped while the backend is down, but an opt-out label may still be the intended " +
				"feature switch (sidecar injectors such as Istio fail closed and document `sidecar.istio.io/inject: " +
				"\"false\"`). A bypass only if the mutation enforces a policy, so these are reported as info.\n" +
				"* **Inclusions** (`matchLabels`, `In`, `Exists`) on a validating webhook: only objects that " +
				"carry the label are checked, so authors opt out by leaving it off. That is right when the " +
				"label switches on the feature being validated (a credential Secret, a deletion-protected " +
				"object) and a bypass when the webhook is meant to police every such object. The rule cannot " +
				"tell the two apart and reports these as info.\n" +
				"* Inclusions on a mutating webhook (opt-in injection), and any selector on a mutating webhook " +
				"that fails open, are features the object's author is meant to control: not reported.\n\n" +
				"The `kubernetes.io/metadata.name` label of a Namespace is set by the API server, so selecting " +
				"namespaces by it is not a bypass.",
			Bad: "apiVersion: admissionregistration.k8s.io/v1\n" +
				"kind: ValidatingWebhookConfiguration\n" +
				"metadata:\n" +
				"  name: image-policy\n" +
				"webhooks:\n" +
				"- name: images.policy.example.com\n" +
				"  clientConfig:\n" +
				"    service: {name: policy, namespace: policy}\n" +
				"  objectSelector:\n" +
				"    matchExpressions:\n" +
				"    - {key: policy.example.com/skip, operator: DoesNotExist}\n" +
				"  rules:\n" +
				"  - {apiGroups: [\"\"], apiVersions: [v1], operations: [CREATE], resources: [pods]}\n" +
				"  sideEffects: None\n" +
				"  admissionReviewVersions: [v1]\n",
			Good: "apiVersion: admissionregistration.k8s.io/v1\n" +
				"kind: ValidatingWebhookConfiguration\n" +
				"metadata:\n" +
				"  name: image-policy\n" +
				"webhooks:\n" +
				"- name: images.policy.example.com\n" +
				"  clientConfig:\n" +
				"    service: {name: policy, namespace: policy}\n" +
				"  namespaceSelector:   # namespace labels are set by cluster admins, not by pod authors\n" +
				"    matchExpressions:\n" +
				"    - {key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system, policy]}\n" +
				"  matchConditions:     # or exempt by who makes the request\n" +
				"  - name: not-the-policy-controller\n" +
				"    expression: \"request.userInfo.username != 'system:serviceaccount:policy:controller'\"\n" +
				"  rules:\n" +
				"  - {apiGroups: [\"\"], apiVersions: [v1], operations: [CREATE], resources: [pods]}\n" +
				"  sideEffects: None\n" +
				"  admissionReviewVersions: [v1]\n",
			Fix: "Exempt objects by something their authors cannot set: a namespaceSelector on namespace labels " +
				"that only administrators may change (the namespace name label is set by the API server), or " +
				"matchConditions on `request.userInfo`. If label-based exemptions are required, protect the " +
				"label with a policy that restricts who may set it.",
			Sources: []string{
				"webhook-facts.md C06 (objectSelector is evaluated on the request's object; users who can set labels can opt out), D16, F07 (IBM/portieris#145: a selector added against self-deadlock became an enforcement bypass)",
				"webhook-facts.md B12 (kubernetes.io/metadata.name set on every namespace), D14 (mutating webhooks should fail open)",
				"https://kubernetes.io/docs/reference/access-authn-authz/extensible-admission-controllers/#matching-requests-objectselector",
			},
		},
		Check: checkObjectSelectorBypass,
	})
}

func checkObjectSelectorBypass(p *Pass) {
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		if selectorEmpty(w.ObjectSelector) {
			continue
		}
		mutating := p.Config.IsMutating()
		if mutating && !w.FailsClosed() {
			continue // an optional mutation the author may decline
		}
		path := w.Path().Child("objectSelector")
		reqs := selectorRequirements(w.ObjectSelector, path)
		if unsatisfiable(reqs) != "" || !reachesLabelledObjects(w) {
			continue // the selector never matches: selector-never-matches
		}
		namespacesOnly := onlyNamespaceObjects(w)
		var inclusions []string
		for _, r := range reqs {
			if namespacesOnly && r.Key == "kubernetes.io/metadata.name" {
				continue // set by the API server, not by the author
			}
			switch r.Operator {
			case metav1.LabelSelectorOpDoesNotExist, metav1.LabelSelectorOpNotIn:
				if mutating {
					reportAtKey(p, diag.Info, r.Path, "%s fails closed but skips objects %s (objectSelector %q): "+
						"whoever creates or updates an object can set that label and skip the mutation; fine for an "+
						"opt-out feature such as sidecar injection, a bypass if the mutation enforces a policy (then "+
						"exempt with a namespaceSelector on labels users cannot set, or matchConditions on "+
						"request.userInfo, and validate the result)", quoteWebhook(w), excludedBy(r), r.String())
					continue
				}
				p.Reportf(r.Path, "%s skips objects %s (objectSelector %q): whoever creates or updates an object "+
					"can set that label and bypass this validating webhook; %s",
					quoteWebhook(w), excludedBy(r), r.String(), exemptAdvice(w))
			case metav1.LabelSelectorOpIn, metav1.LabelSelectorOpExists:
				if !mutating {
					inclusions = append(inclusions, r.String())
				}
			}
		}
		if len(inclusions) > 0 {
			reportAtKey(p, diag.Info, path, "%s only checks objects selected by %s: authors opt out by "+
				"leaving the label off; fine if the label switches on the feature being validated, a bypass if "+
				"every such object must be checked (then select with namespaceSelector or matchConditions)",
				quoteWebhook(w), strings.Join(inclusions, ", "))
		}
	}
}

// excludedBy describes the objects an exclusion requirement skips.
func excludedBy(r labelRequirement) string {
	if r.Operator == metav1.LabelSelectorOpDoesNotExist {
		return fmt.Sprintf("labeled %s", r.Key)
	}
	if len(r.Values) == 1 {
		return fmt.Sprintf("labeled %s=%s", r.Key, r.Values[0])
	}
	return fmt.Sprintf("whose label %s is one of %s", r.Key, strings.Join(r.Values, ", "))
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
		return "exempt requests with matchConditions on request.userInfo instead (the resources are cluster-scoped, " +
			"so a namespaceSelector cannot help)"
	}
	return "exempt objects with a namespaceSelector on labels users cannot set, or with matchConditions on request.userInfo"
}
