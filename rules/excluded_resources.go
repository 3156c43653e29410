package rules

import (
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/webhooklint/webhooklint/diag"
)

// excludedFromWebhooks are the virtual (never persisted) resources the API
// server does not send to admission webhooks, from
// kubernetes@v1.37.2/pkg/kubeapiserver/admission/exclusion/resources.go.
var excludedFromWebhooks = []schema.GroupResource{
	{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"},
	{Group: "authentication.k8s.io", Resource: "tokenreviews"},
	{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"},
	{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"},
	{Group: "authorization.k8s.io", Resource: "selfsubjectrulesreviews"},
	{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"},
}

// excludedResourcesGateMinor is the first minor where the server excludes
// these resources (feature gate ExcludeAdmissionWebhookVirtualResources,
// beta and on by default) and warns about rules naming them.
const excludedResourcesGateMinor = 37

func init() {
	register(&Rule{
		Name:     "excluded-resources",
		Summary:  "rules that name resources the API server never sends to admission webhooks have no effect",
		Severity: diag.Warning,
		Category: Server,
		Since:    "0.1.0",
		Doc: Doc{
			Why: "Since Kubernetes 1.37 (feature gate `ExcludeAdmissionWebhookVirtualResources`, beta, on by " +
				"default) the API server no longer calls admission webhooks for the virtual review resources of " +
				"`authentication.k8s.io` and `authorization.k8s.io` (TokenReview, SubjectAccessReview and " +
				"friends): intercepting them could lock the cluster out. A rule naming one of them is accepted " +
				"with a warning (which the finding repeats, located at the rule) and never matches. Rules using `*` for groups or resources are not reported.",
			Fix: "Remove the excluded resources from the rule; webhooks cannot see these requests on 1.37 and newer.",
			Sources: []string{
				srcWarnings,
				srcExclusion,
				prExcludeReviews,
			},
		},
		Check: checkExcludedResources,
	})
}

func checkExcludedResources(p *Pass) {
	if !p.Settings.KubeVersion.AtLeast(excludedResourcesGateMinor) {
		return
	}
	for i := range p.Config.Webhooks {
		w := &p.Config.Webhooks[i]
		for j, r := range w.Rules {
			path := w.FieldPath("rules").Index(j)
			for _, gr := range excludedNamedByRule(r.APIGroups, r.Resources) {
				// The server's warning, without the path it starts with:
				// the finding is located there.
				p.Reportf(path, "%s is excluded from admission webhooks; this rule will have no effect", gr)
			}
		}
	}
}

// excludedNamedByRule lists, once each and in rule order, the excluded
// group/resources a rule names explicitly; wildcards are not expanded.
func excludedNamedByRule(groups, resources []string) []schema.GroupResource {
	if slices.Contains(groups, "*") || slices.Contains(resources, "*") {
		return nil
	}
	var out []schema.GroupResource
	for _, g := range groups {
		for _, r := range resources {
			gr := schema.GroupResource{Group: g, Resource: r}
			if slices.Contains(excludedFromWebhooks, gr) && !slices.Contains(out, gr) {
				out = append(out, gr)
			}
		}
	}
	return out
}
