package rules

import (
	"slices"

	admissionv1 "k8s.io/api/admissionregistration/v1"
)

// This file simulates whether the API server evaluates an admission policy
// through one of its bindings for a request, the way
// k8s.io/apiserver@v0.37.2 pkg/admission/plugin/policy/matching Matches and
// generic/policy_matcher.go decide it: the policy's matchConstraints must
// match, then the binding's matchResources (nil: every request the policy
// matches), then the policy's matchConditions. It reuses the webhook
// simulation's selectors, rules and equivalent resources (match.go); only
// resourceNames and excludeResourceRules are the policies' own.

// policyResources are the admission policy kinds, which policies
// registered through the API are never evaluated for (generic/plugin.go).
var policyResources = map[string]bool{
	"validatingadmissionpolicies": true, "validatingadmissionpolicybindings": true,
	"mutatingadmissionpolicies": true, "mutatingadmissionpolicybindings": true,
}

// UnknownResourceNames: a rule lists resourceNames, and the request's
// object name is not known.
const UnknownResourceNames Unknown = "resourceNames"

// PolicySimulator is a policy and one binding prepared for simulating
// many requests.
type PolicySimulator struct {
	constraints matchResourcesSimulator
	binding     *matchResourcesSimulator // nil: the binding does not narrow
	conditions  []admissionv1.MatchCondition
}

// NewPolicySimulator prepares the match of policy constraints, narrowed by
// a binding's matchResources (nil for none), with the policy's
// matchConditions.
func NewPolicySimulator(constraints, binding *admissionv1.MatchResources, conditions []admissionv1.MatchCondition) *PolicySimulator {
	s := &PolicySimulator{conditions: conditions}
	if constraints != nil {
		s.constraints = prepareMatchResources(constraints, false)
	} else {
		// The server rejects a policy without matchConstraints; such a
		// policy matches nothing (DefinitionMatches errs, admission-policy
		// reports it).
		s.constraints = matchResourcesSimulator{nothing: true}
	}
	if binding != nil {
		b := prepareMatchResources(binding, true)
		s.binding = &b
	}
	return s
}

// matchResourcesSimulator is one MatchResources, prepared.
type matchResourcesSimulator struct {
	selectors        Simulator // only its selectors are set
	include, exclude []admissionv1.NamedRuleWithOperations
	equivalent       bool
	// emptyMatchesAll: no resourceRules match every resource. Only on a
	// binding: the server never stores a policy without resourceRules.
	emptyMatchesAll bool
	// nothing: the policy has no matchConstraints.
	nothing bool
}

func prepareMatchResources(m *admissionv1.MatchResources, emptyMatchesAll bool) matchResourcesSimulator {
	return matchResourcesSimulator{
		selectors: Simulator{nsSel: prepareSelector(m.NamespaceSelector), objSel: prepareSelector(m.ObjectSelector)},
		include:   m.ResourceRules, exclude: m.ExcludeResourceRules,
		// The server defaults matchPolicy to Equivalent.
		equivalent:      m.MatchPolicy == nil || *m.MatchPolicy == admissionv1.Equivalent,
		emptyMatchesAll: emptyMatchesAll,
	}
}

// Simulate decides whether the policy is evaluated for req through the
// binding. Simulation.Rule indexes the policy's matchConstraints.resourceRules.
func (s *PolicySimulator) Simulate(req *Request) Simulation {
	sim := Simulation{Outcome: Called, Rule: -1}
	if req.Group == GroupName && policyResources[req.Resource] {
		// Unlike webhooks, policies do see webhook configurations.
		return Simulation{Outcome: NotCalled, Rule: -1}
	}
	step := func(o Outcome, u Unknown) {
		if o == MaybeCalled && u != "" {
			sim.Unknowns = append(sim.Unknowns, u)
		}
		sim.Outcome = sim.Outcome.and(o)
	}
	rule := s.constraints.simulate(req, step)
	sim.Rule = rule
	if s.binding != nil {
		s.binding.simulate(req, step)
	}
	if len(s.conditions) > 0 {
		step(matchConditionsOutcome(s.conditions, req), UnknownMatchConditions)
	}
	if sim.Outcome != MaybeCalled {
		sim.Unknowns = nil
	}
	return sim
}

// simulate takes the steps of matching.Matches on m and returns the index
// of the resourceRule that matches, or -1.
func (m *matchResourcesSimulator) simulate(req *Request, step func(Outcome, Unknown)) int {
	if m.nothing {
		step(NotCalled, "")
		return -1
	}
	step(m.selectors.matchNamespaceSelector(req), UnknownNamespaceSelector)
	step(m.selectors.matchObjectSelector(req), UnknownObjectSelector)
	if excluded, _ := namedRulesOutcome(m.exclude, m.equivalent, req); excluded != NotCalled {
		step(excluded.not(), UnknownResourceNames)
	}
	if len(m.include) == 0 {
		if !m.emptyMatchesAll {
			step(NotCalled, "")
		}
		return -1
	}
	matched, at := namedRulesOutcome(m.include, m.equivalent, req)
	step(matched, UnknownResourceNames)
	return at
}

// namedRulesOutcome is matching.matchesResourceRules: every rule against
// the request itself, then with matchPolicy Equivalent against its
// equivalent resources. A rule that matches but lists resourceNames
// matches only the objects so named: unknown for a request without a name.
func namedRulesOutcome(rules []admissionv1.NamedRuleWithOperations, equivalent bool, req *Request) (Outcome, int) {
	out, at := NotCalled, -1
	try := func(i int, r *Request, version string) bool {
		rule := rules[i].RuleWithOperations
		if !ruleMatches(&rule, r, version) {
			return false
		}
		if len(rules[i].ResourceNames) == 0 {
			out, at = Called, i
			return true
		}
		if r.Name != "" {
			if slices.Contains(rules[i].ResourceNames, r.Name) {
				out, at = Called, i
				return true
			}
			return false
		}
		if out == NotCalled {
			out, at = MaybeCalled, i
		}
		return false
	}
	for i := range rules {
		if try(i, req, req.Version) {
			return out, at
		}
	}
	if !equivalent {
		return out, at
	}
	equivalents := EquivalentResources(req)
	for i := range rules {
		for _, e := range equivalents {
			alt := *req
			alt.Group, alt.Resource = e.Group, e.Resource
			if try(i, &alt, e.Version) {
				return out, at
			}
		}
	}
	return out, at
}

// not negates an outcome: an exclusion that certainly matches certainly
// excludes, one that may match may exclude.
func (o Outcome) not() Outcome { return Called - o }
