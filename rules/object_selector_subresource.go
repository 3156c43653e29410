package rules

import (
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"

	"github.com/webhooklint/webhooklint/diag"
)

// labelFreeSubresources are the subresources whose request object has
// metadata but none of the parent's labels: the scheduler's Binding and a
// drain's Eviction carry only the pod's name and namespace, the Scale the
// API server builds for */scale copies name, namespace, UID and resource
// version (kubernetes@v1.37.2 pkg/registry/apps/deployment/storage
// scaleFromDeployment), and a TokenRequest is its own object. A pod's
// status update, by contrast, carries the whole Pod with its labels. The
// doc names each object; messages name the subresource.
var labelFreeSubresources = map[string]bool{"binding": true, "eviction": true, "scale": true, "token": true}

func init() {
	register(&Rule{
		Name:     "object-selector-subresource",
		Summary:  "an objectSelector meets subresource requests whose object carries none of the parent's labels",
		Severity: diag.Warning,
		Category: Practice,
		Since:    "0.3.0",
		Doc: Doc{
			Why: "For a subresource the API server evaluates the objectSelector on the object of the request, " +
				"not on the parent: `pods/eviction` carries an Eviction, `pods/binding` a " +
				"Binding, `*/scale` a Scale and `serviceaccounts/token` a TokenRequest, none of which has the " +
				"labels of the pod, Deployment or ServiceAccount it is about. An objectSelector that requires a " +
				"label (`matchLabels`, `In`, `Exists`) therefore never matches them and the webhook is never " +
				"called for those requests, while an opt-out (`NotIn`, `DoesNotExist`) never excludes them. " +
				"Status updates (`pods/status`) carry the whole object and are not concerned.",
			Fix: "Drop the objectSelector for these subresources (a separate webhook) and let the backend look up " +
				"the parent's labels, or narrow with matchConditions on `request.name`, `request.namespace` or " +
				"the user instead.",
			Sources: []string{
				srcObjectMatcher,
				docsWebhooks + "#matching-requests-objectselector",
				k8sSource + "pkg/registry/apps/deployment/storage/storage.go",
			},
		},
		Check: checkObjectSelectorSubresource,
	})
}

func checkObjectSelectorSubresource(p *Pass) {
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		if selectorEmpty(w.ObjectSelector) {
			continue
		}
		// What the selector does to an object without labels.
		outcome := SelectorOutcome(w.ObjectSelector, KnownLabels(nil))
		if outcome == MaybeCalled {
			continue // an invalid selector: the server rejects it
		}
		for ri, r := range w.Rules {
			if !ruleCreatesOrUpdates(r) {
				continue
			}
			for j, res := range r.Resources {
				parent, sub, ok := strings.Cut(res, "/")
				if !ok || !labelFreeSubresources[sub] || parent == "" {
					continue
				}
				path := w.FieldPath("rules").Index(ri).Child("resources").Index(j)
				if outcome == NotCalled {
					p.Reportf(path, "%s: objectSelector never matches %s requests; drop it for them or use matchConditions",
						quoteWebhook(w), res)
					continue
				}
				p.ReportSeverity(diag.Info, path, fmt.Sprintf("%s: objectSelector exclusions never apply to %s requests; "+
					"exclude them with matchConditions if meant", quoteWebhook(w), res))
			}
		}
	}
}

// ruleCreatesOrUpdates reports whether a rule takes CREATE or UPDATE
// requests, the operations of these subresources.
func ruleCreatesOrUpdates(r admissionv1.RuleWithOperations) bool {
	for _, op := range r.Operations {
		if op == admissionv1.OperationAll || op == admissionv1.Create || op == admissionv1.Update {
			return true
		}
	}
	return false
}
