package rules

import (
	"slices"

	admissionv1 "k8s.io/api/admissionregistration/v1"
)

// Step-by-step access to the request matching of match.go, for callers
// that explain a decision instead of only taking it (`webhooklint
// simulate`). Everything here delegates to the matchers the rules use.

// RuleMatch says which rule of a webhook matches a request, and through
// which group/version/resource.
type RuleMatch struct {
	// Index is the first matching rule, or -1.
	Index int
	// Group, Version and Resource are what the rule matched: the request's
	// own, or with matchPolicy Equivalent the equivalent resource the API
	// server converts the object to before calling the webhook.
	Group, Version, Resource string
	// Equivalent is set when the match needed matchPolicy Equivalent.
	Equivalent bool
}

// MatchRule finds the rule of w that matches req the way the API server
// does (generic/webhook.go ShouldCallHook): every rule against the request
// itself first, then, with matchPolicy Equivalent, rule by rule against the
// equivalent resources: the other served versions (req.EquivalentVersions,
// else the built-in table) and the resources stored together with it
// (core and events.k8s.io events).
func (w *Webhook) MatchRule(req *Request) RuleMatch {
	for i := range w.Rules {
		if ruleMatches(&w.Rules[i], req, req.Version) {
			return RuleMatch{Index: i, Group: req.Group, Version: req.Version, Resource: req.Resource}
		}
	}
	if w.EffectiveMatchPolicy() != admissionv1.Equivalent {
		return RuleMatch{Index: -1}
	}
	equivalents := EquivalentResources(req)
	for i := range w.Rules {
		for _, e := range equivalents {
			alt := *req
			alt.Group, alt.Resource = e.Group, e.Resource
			if ruleMatches(&w.Rules[i], &alt, e.Version) {
				return RuleMatch{Index: i, Group: e.Group, Version: e.Version, Resource: e.Resource, Equivalent: true}
			}
		}
	}
	return RuleMatch{Index: -1}
}

// EquivalentResource is a group/version/resource serving the same objects
// as a request's.
type EquivalentResource struct{ Group, Version, Resource string }

// EquivalentResources lists what the API server treats as equivalent to
// req's resource for matchPolicy Equivalent, without the request's own
// group/version: its other versions, then the versions of a resource
// stored with it.
func EquivalentResources(req *Request) []EquivalentResource {
	versions := req.EquivalentVersions
	if versions == nil {
		if b, ok := LookupBuiltin(req.Group, req.Resource, req.Subresource); ok {
			versions = b.Versions
		}
	}
	var out []EquivalentResource
	for _, v := range versions {
		if v != req.Version {
			out = append(out, EquivalentResource{req.Group, v, req.Resource})
		}
	}
	if other, ok := cohabiting[[2]string{req.Group, req.Resource}]; ok {
		if b, ok := LookupBuiltin(other[0], other[1], req.Subresource); ok {
			for _, v := range b.Versions {
				out = append(out, EquivalentResource{b.Group, v, b.Resource})
			}
		}
	}
	return out
}

// NamespaceSelectorOutcome is the namespaceSelector step of Simulate alone.
func (s *Simulator) NamespaceSelectorOutcome(req *Request) Outcome {
	return s.matchNamespaceSelector(req)
}

// ObjectSelectorOutcome is the objectSelector step of Simulate alone.
func (s *Simulator) ObjectSelectorOutcome(req *Request) Outcome { return s.matchObjectSelector(req) }

// ConditionOutcome decides one matchCondition from the request fields
// alone (namespace, operation, resource, user), as Simulate does; anything
// that needs the objects or the authorizer is MaybeCalled.
func ConditionOutcome(expression string, req *Request) Outcome {
	return matchConditionsOutcome([]admissionv1.MatchCondition{{Expression: expression}}, req)
}

// NeverSentToWebhooks says why the API server sends no request on
// group/resource (any subresource) to webhooks registered through the API,
// or returns "": admission configuration itself, and from 1.37 the virtual
// authentication and authorization reviews.
func NeverSentToWebhooks(group, resource string, kube KubeVersion) string {
	if group == GroupName && slices.Contains(admissionConfigResources, resource) {
		return "the API server never calls webhooks for admission configuration objects"
	}
	if kube.AtLeast(virtualReviewsExcludedSince) && slices.Contains(virtualReviewResources[group], resource) {
		return "the API server never calls webhooks for virtual authentication and authorization reviews (since 1.37)"
	}
	return ""
}
