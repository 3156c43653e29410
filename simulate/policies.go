package simulate

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"

	"github.com/webhooklint/webhooklint/rules"
)

// The admission policies of the chain. The API server runs them as two
// admission plugins of their own (kubernetes pkg/kubeapiserver/options
// plugins.go AllOrderedPlugins): MutatingAdmissionPolicy right before
// MutatingAdmissionWebhook, ValidatingAdmissionPolicy right before
// ValidatingAdmissionWebhook. Each plugin pairs every binding with the
// policy it names (apiserver policy/generic policy_source.go), skipping
// bindings whose policy does not exist, and walks the pairs in the order
// of a Go map over policy names: the order between policies is not
// defined. For one pair it checks the policy's matchConstraints, then the
// binding's matchResources (policy/matching), then the policy's
// matchConditions and validations (policy/validating dispatcher.go).

// The decisions of a policy binding; Rejects and NotReached also apply.
const (
	Applies      Decision = "applies"
	DoesNotApply Decision = "does not apply"
	// MayApply: nothing seen excludes the request, but something the
	// simulation does not know decides.
	MayApply Decision = "may apply"
)

// The results of one validation expression.
const (
	Pass Result = "pass"
	Fail Result = "fail"
)

// Effect is what a validating policy binding does to the request.
type Effect string

const (
	Denies        Effect = "denies"
	Warns         Effect = "warns"
	Audits        Effect = "audits"
	Admits        Effect = "admits"
	UnknownEffect Effect = "unknown"
)

// PolicyCall is one policy with one of its bindings, in the chain.
type PolicyCall struct {
	Policy   string   `json:"policy"`
	Binding  string   `json:"binding"`
	Decision Decision `json:"decision"`
	Reason   string   `json:"reason"`
	// Checks are the match steps: the policy's matchConstraints, the
	// binding's matchResources, then the policy's matchConditions.
	Checks        []Check `json:"checks"`
	FailurePolicy string  `json:"failurePolicy"`
	// Params says what the policy's paramKind needs, when it has one.
	Params string `json:"params,omitempty"`
	// ValidationActions, Validations and Effect: validating policies.
	ValidationActions []string `json:"validationActions,omitempty"`
	Validations       []Check  `json:"validations,omitempty"`
	Effect            Effect   `json:"effect,omitempty"`
	// Failures are the messages of the validations that certainly fail,
	// as the server words them in a denial or a warning.
	Failures []string `json:"failures,omitempty"`
	// Warnings are the warning headers the server returns (Warn action).
	Warnings []string `json:"warnings,omitempty"`
	// ReinvocationPolicy and Mutations: mutating policies.
	ReinvocationPolicy string `json:"reinvocationPolicy,omitempty"`
	Mutations          string `json:"mutations,omitempty"`
}

func (p *PolicyCall) reached() bool { return p.Decision == Applies || p.Decision == MayApply }

// id names the pair as the server's messages do.
func (p *PolicyCall) id() string { return p.Policy + " with binding " + p.Binding }

// policyPair is a policy with one binding that names it.
type policyPair struct {
	policy, binding *rules.Policy
}

// pairPolicies pairs bindings with their policies, sorted by policy then
// binding name (the server's order is not defined), and notes bindings
// whose policy is not in the input.
func pairPolicies(policies []*rules.Policy, mutating bool) ([]policyPair, []string) {
	policyKind, bindingKind := rules.ValidatingPolicy, rules.ValidatingPolicyBinding
	if mutating {
		policyKind, bindingKind = rules.MutatingPolicy, rules.MutatingPolicyBinding
	}
	byName := map[string]*rules.Policy{}
	for _, p := range policies {
		if p.Kind == policyKind {
			byName[p.Meta.Name] = p
		}
	}
	var pairs []policyPair
	var notes []string
	for _, b := range policies {
		if b.Kind != bindingKind {
			continue
		}
		p, ok := byName[b.BindingPolicyName()]
		if !ok {
			notes = append(notes, fmt.Sprintf("%s %s binds %s %q, which is not in the input: the server skips such a binding", bindingKind, b.Meta.Name, policyKind, b.BindingPolicyName()))
			continue
		}
		pairs = append(pairs, policyPair{p, b})
	}
	slices.SortStableFunc(pairs, func(a, b policyPair) int {
		return cmp.Or(cmp.Compare(a.policy.Meta.Name, b.policy.Meta.Name), cmp.Compare(a.binding.Meta.Name, b.binding.Meta.Name))
	})
	slices.Sort(notes)
	return pairs, notes
}

// policyMatcher is the part of a policy or binding that decides whether a
// request is met, as a webhook the rules package can match: selectors,
// matchPolicy and rules, with resourceNames kept aside.
type policyMatcher struct {
	res *admissionv1.MatchResources
}

// matchCheck is the result of matching one MatchResources.
type matchCheck struct {
	checks    []Check
	outcome   rules.Outcome
	why       string
	invokedAs *GroupVersionResourceKind
}

// match follows policy/matching Matcher.Matches: namespaceSelector,
// objectSelector, excludeResourceRules, then resourceRules (none: every
// request). prefix names the field in the checks.
func (pm policyMatcher) match(prefix string, rreq *rules.Request, req *Request) matchCheck {
	res := pm.res
	w := &rules.Webhook{NamespaceSelector: res.NamespaceSelector, ObjectSelector: res.ObjectSelector, MatchPolicy: res.MatchPolicy}
	if w.MatchPolicy == nil {
		equivalent := admissionv1.Equivalent // the server's default
		w.MatchPolicy = &equivalent
	}
	sim := w.Simulator()
	var mc matchCheck
	mc.outcome = rules.Called
	step := func(c Check, o rules.Outcome, why string) {
		c.Check = prefix + "." + c.Check
		mc.checks = append(mc.checks, c)
		switch {
		case o == rules.NotCalled && mc.outcome != rules.NotCalled:
			mc.outcome, mc.why = rules.NotCalled, why
		case o == rules.MaybeCalled && mc.outcome == rules.Called:
			mc.outcome, mc.why = rules.MaybeCalled, why
		}
	}
	nsOutcome := sim.NamespaceSelectorOutcome(rreq)
	nsCheck := namespaceCheck(w, nsOutcome, rreq, req)
	step(nsCheck, nsOutcome, prefix+".namespaceSelector "+nsCheck.Result.verb())
	objOutcome := sim.ObjectSelectorOutcome(rreq)
	objCheck := objectCheck(w, objOutcome, req)
	step(objCheck, objOutcome, prefix+".objectSelector "+objCheck.Result.verb())

	if len(res.ExcludeResourceRules) > 0 {
		o, detail, _ := namedRulesMatch(res.ExcludeResourceRules, w, rreq, req)
		c := Check{Check: "excludeResourceRules", Result: toResult(o), Detail: detail}
		// An excluded request is not met: the outcome is the negation.
		neg := map[rules.Outcome]rules.Outcome{rules.Called: rules.NotCalled, rules.NotCalled: rules.Called, rules.MaybeCalled: rules.MaybeCalled}[o]
		step(c, neg, prefix+".excludeResourceRules "+map[rules.Outcome]string{rules.Called: "excludes the request", rules.MaybeCalled: "may exclude the request"}[o])
	}
	if len(res.ResourceRules) == 0 {
		step(Check{Check: "resourceRules", Result: Match, Detail: "none: every request"}, rules.Called, "")
	} else {
		o, detail, invokedAs := namedRulesMatch(res.ResourceRules, w, rreq, req)
		mc.invokedAs = invokedAs
		step(Check{Check: "resourceRules", Result: toResult(o), Detail: detail}, o, prefix+".resourceRules "+map[rules.Outcome]string{rules.NotCalled: "do not match", rules.MaybeCalled: "may match"}[o])
	}
	return mc
}

// namedRulesMatch is matching.go matchesResourceRules: every rule against
// the request itself, then with matchPolicy Equivalent against the
// equivalent resources; a rule with resourceNames also needs the name.
func namedRulesMatch(named []admissionv1.NamedRuleWithOperations, w *rules.Webhook, rreq *rules.Request, req *Request) (rules.Outcome, string, *GroupVersionResourceKind) {
	reqText := fmt.Sprintf("%s %s", req.Operation, gvrText(req.Group, req.Version, req.Resource, req.Subresource))
	exact := admissionv1.Exact
	try := func(policy *admissionv1.MatchPolicyType) (rules.Outcome, string, *GroupVersionResourceKind) {
		var maybe string
		for i, nr := range named {
			one := &rules.Webhook{Rules: []admissionv1.RuleWithOperations{nr.RuleWithOperations}, MatchPolicy: policy}
			m := one.MatchRule(rreq)
			if m.Index < 0 {
				continue
			}
			var invokedAs *GroupVersionResourceKind
			via := ""
			if m.Equivalent {
				invokedAs = &GroupVersionResourceKind{Group: m.Group, Version: m.Version, Resource: m.Resource, Kind: kindOf(m, req)}
				via = " through matchPolicy Equivalent, as " + gvrText(m.Group, m.Version, m.Resource, req.Subresource)
			}
			switch {
			case len(nr.ResourceNames) == 0:
				return rules.Called, fmt.Sprintf("[%d] matches %s%s", i, reqText, via), invokedAs
			case req.Name == "":
				if maybe == "" {
					maybe = fmt.Sprintf("[%d] matches %s%s if the name is one of its resourceNames (give --name)", i, reqText, via)
				}
			case slices.Contains(nr.ResourceNames, req.Name):
				return rules.Called, fmt.Sprintf("[%d] matches %s%s and name %s", i, reqText, via, req.Name), invokedAs
			}
		}
		if maybe != "" {
			return rules.MaybeCalled, maybe, nil
		}
		return rules.NotCalled, "", nil
	}
	if o, d, inv := try(&exact); o != rules.NotCalled {
		return o, d, inv
	}
	if w.EffectiveMatchPolicy() == admissionv1.Equivalent {
		if o, d, inv := try(w.MatchPolicy); o != rules.NotCalled {
			return o, d, inv
		}
	}
	detail := "no rule matches " + reqText
	if w.EffectiveMatchPolicy() == admissionv1.Exact {
		detail += " with matchPolicy Exact"
	}
	return rules.NotCalled, detail, nil
}

// policySettings are the fields the two policy kinds share.
type policySettings struct {
	constraints     *admissionv1.MatchResources
	bindingResource *admissionv1.MatchResources
	conditions      []admissionv1.MatchCondition
	failurePolicy   admissionv1.FailurePolicyType
	paramKind       *admissionv1.ParamKind
	paramRef        *admissionv1.ParamRef
}

func settingsOf(pair policyPair) policySettings {
	var s policySettings
	var fp *admissionv1.FailurePolicyType
	if v := pair.policy.Validating; v != nil {
		s.constraints, s.conditions, fp, s.paramKind = v.Spec.MatchConstraints, v.Spec.MatchConditions, v.Spec.FailurePolicy, v.Spec.ParamKind
	}
	if m := pair.policy.Mutating; m != nil {
		s.constraints, s.conditions, fp, s.paramKind = m.Spec.MatchConstraints, m.Spec.MatchConditions, m.Spec.FailurePolicy, m.Spec.ParamKind
	}
	if b := pair.binding.ValidatingBinding; b != nil {
		s.bindingResource, s.paramRef = b.Spec.MatchResources, b.Spec.ParamRef
	}
	if b := pair.binding.MutatingBinding; b != nil {
		s.bindingResource, s.paramRef = b.Spec.MatchResources, b.Spec.ParamRef
	}
	s.failurePolicy = admissionv1.Fail // the server's default
	if fp != nil {
		s.failurePolicy = *fp
	}
	return s
}

// decidePolicy decides whether one pair meets the request: the policy's
// matchConstraints, the binding's matchResources, then the policy's
// matchConditions (evaluated as a webhook's, with the policy's
// failurePolicy).
func (ch *Chain) decidePolicy(pair policyPair, rreq *rules.Request, ev *conditionEvaluator) (*PolicyCall, policySettings) {
	s := settingsOf(pair)
	call := &PolicyCall{Policy: pair.policy.Meta.Name, Binding: pair.binding.Meta.Name, FailurePolicy: string(s.failurePolicy)}
	if s.paramKind != nil {
		call.Params = fmt.Sprintf("paramKind %s %s: unknown (the simulation reads no param objects", s.paramKind.APIVersion, s.paramKind.Kind)
		if s.paramRef != nil && s.paramRef.ParameterNotFoundAction != nil {
			call.Params += fmt.Sprintf("; with none found, parameterNotFoundAction %s decides", *s.paramRef.ParameterNotFoundAction)
		}
		call.Params += ")"
	}
	if ch.NeverSent != "" {
		call.Decision, call.Reason = DoesNotApply, strings.Replace(ch.NeverSent, "calls webhooks", "runs admission policies", 1)
		return call, s
	}
	if s.constraints == nil {
		call.Decision, call.Reason = DoesNotApply, "the policy has no matchConstraints (the server never stores such a policy)"
		return call, s
	}
	outcome := rules.Called
	var reasons []string
	add := func(mc matchCheck) {
		call.Checks = append(call.Checks, mc.checks...)
		switch {
		case mc.outcome == rules.NotCalled && outcome != rules.NotCalled:
			outcome, reasons = rules.NotCalled, []string{mc.why}
		case mc.outcome == rules.MaybeCalled && outcome != rules.NotCalled:
			outcome = rules.MaybeCalled
			reasons = append(reasons, mc.why)
		}
	}
	def := policyMatcher{s.constraints}.match("matchConstraints", rreq, ch.Request)
	add(def)
	if s.bindingResource != nil {
		add(policyMatcher{s.bindingResource}.match("binding.matchResources", rreq, ch.Request))
	}
	if len(s.conditions) > 0 {
		if outcome == rules.NotCalled {
			for i, c := range s.conditions {
				call.Checks = append(call.Checks, Check{Check: conditionName(i, c), Result: NotEvaluated,
					Detail: "the server evaluates matchConditions only when everything else matches"})
			}
		} else {
			checks, decision, why := ev.evaluateConditions(s.conditions, s.failurePolicy, rreq, def.invokedAs, ev.policyVariables)
			call.Checks = append(call.Checks, checks...)
			switch decision {
			case NotCalled:
				outcome, reasons = rules.NotCalled, []string{why}
			case Rejects:
				if outcome == rules.Called {
					call.Decision, call.Reason = Rejects, strings.Replace(why, "matchConditions fail", "the policy's matchConditions fail", 1)
					return call, s
				}
				reasons = append(reasons, "and then "+why)
			case MaybeCalled:
				outcome = rules.MaybeCalled
				reasons = append(reasons, why)
			}
		}
	}
	switch outcome {
	case rules.NotCalled:
		call.Decision = DoesNotApply
	case rules.MaybeCalled:
		call.Decision = MayApply
	default:
		call.Decision = Applies
		reasons = []string{"matchConstraints match and nothing excludes the request"}
	}
	call.Reason = strings.Join(reasons, "; ")
	return call, s
}

// mutatingPolicies decides the MutatingAdmissionPolicy bindings, which
// the server runs before any mutating webhook. Their mutations are not
// applied by the simulation.
func (ch *Chain) mutatingPolicies(pairs []policyPair, rreq *rules.Request, ev *conditionEvaluator) {
	changed := false
	for _, pair := range pairs {
		call, _ := ch.decidePolicy(pair, rreq, ev)
		// Required, with no default: an unset one is left out.
		call.ReinvocationPolicy = string(pair.policy.Mutating.Spec.ReinvocationPolicy)
		switch {
		case ch.Rejected != "":
			call.Decision, call.Reason = NotReached, "the request was rejected at "+ch.Rejected
		case call.Decision == Rejects:
			ch.Rejected = "MutatingAdmissionPolicy " + call.id()
		case call.reached() && ch.Request.ObjectState == Absent:
			call.Mutations = "none applied: the request carries no object"
		case call.reached():
			changed = true
			call.Mutations = fmt.Sprintf("%d, applied in order: their result is unknown (the simulation does not apply mutations)", len(pair.policy.Mutating.Spec.Mutations))
		}
		ch.MutatingPolicies = append(ch.MutatingPolicies, call)
	}
	if changed {
		ch.Notes = append(ch.Notes, "the webhooks and validating policies see the object as the mutating admission policies leave it; the simulation matches and evaluates them on the object as given")
	}
}

// validatingPolicies decides the ValidatingAdmissionPolicy bindings, which
// the server runs after the mutating webhooks and before the validating
// ones. Every pair is evaluated; the request is rejected when any denies
// (the server's message names the first denial it met).
func (ch *Chain) validatingPolicies(pairs []policyPair, rreq *rules.Request, ev *conditionEvaluator) {
	var denied []string
	for _, pair := range pairs {
		call, s := ch.decidePolicy(pair, rreq, ev)
		b := pair.binding.ValidatingBinding
		for _, a := range b.Spec.ValidationActions {
			call.ValidationActions = append(call.ValidationActions, string(a))
		}
		switch {
		case ch.Rejected != "":
			call.Decision, call.Reason = NotReached, "the request was rejected at "+ch.Rejected
		case call.Decision == Rejects && s.paramKind != nil:
			// Evaluated once per param found: with none, parameterNotFoundAction decides.
			call.Decision, call.Effect = Applies, UnknownEffect
			call.Reason += ", for each param found"
		case call.Decision == Rejects:
			call.Effect = Denies
			denied = append(denied, call.id())
		case call.reached():
			ch.validate(call, pair.policy.Validating, s, ev)
			if call.Effect == Denies && call.Decision == Applies {
				denied = append(denied, call.id())
			}
		}
		ch.ValidatingPolicies = append(ch.ValidatingPolicies, call)
	}
	if len(denied) > 0 && ch.Rejected == "" {
		ch.Rejected = "ValidatingAdmissionPolicy " + denied[0]
	}
	if note := ch.changedBeforeValidation(); note != "" {
		ch.Notes = append(ch.Notes, note)
	}
	if len(denied) > 1 {
		ch.Notes = append(ch.Notes, fmt.Sprintf("%d policy bindings deny the request (%s): the server's message names the first it evaluates, and its order among policies is not defined",
			len(denied), strings.Join(denied, "; ")))
	}
}

// validate evaluates the policy's validations on what the request carries
// and decides the binding's effect from its validationActions
// (validating/dispatcher.go): a failed validation, or one that fails to
// evaluate under failurePolicy Fail, is denied by Deny, warned by Warn and
// annotated by Audit.
func (ch *Chain) validate(call *PolicyCall, p *admissionv1.ValidatingAdmissionPolicy, s policySettings, ev *conditionEvaluator) {
	vals := p.Spec.Validations
	call.Validations = make([]Check, len(vals))
	var complete []admissionv1.MatchCondition
	at := map[int]int{}
	for i, v := range vals {
		c := &call.Validations[i]
		c.Check = fmt.Sprintf("validations[%d]", i)
		c.Missing = ev.missing(ev.policyVariables(v.Expression), nil)
		if len(c.Missing) == 0 {
			at[i] = len(complete)
			complete = append(complete, admissionv1.MatchCondition{Name: c.Check, Expression: v.Expression})
		}
	}
	var values []bool
	var errs []error
	if len(complete) > 0 {
		d := ev.eval.Evaluate(context.Background(), complete, admissionv1.Fail, ev.attributes(nil), nil)
		for _, v := range d.Values {
			values, errs = append(values, v.Value), append(errs, v.Err)
		}
	}
	failed, unknown := []string{}, 0
	for i, v := range vals {
		c := &call.Validations[i]
		j, ok := at[i]
		switch {
		case !ok:
			c.Result, c.Detail = UnknownMatch, "unknown: needs "+strings.Join(c.Missing, ", ")
			unknown++
		case errs[j] != nil && s.failurePolicy == admissionv1.Ignore:
			c.Result, c.Detail = Error, "evaluation error, ignored (failurePolicy Ignore): "+errs[j].Error()
		case errs[j] != nil:
			c.Result, c.Detail = Error, "evaluation error under failurePolicy Fail: "+errs[j].Error()
			failed = append(failed, errs[j].Error()) // the server's message is the error's
		case values[j]:
			c.Result, c.Detail = Pass, "true"
		default:
			c.Result, c.Detail = Fail, "false: "+validationMessage(v)
			failed = append(failed, validationMessage(v))
		}
	}
	if len(failed) > 0 {
		call.Failures = failed
	}
	actions := call.ValidationActions
	switch {
	case len(failed) > 0 && slices.Contains(actions, string(admissionv1.Deny)):
		call.Effect = Denies
	case len(failed) > 0 && slices.Contains(actions, string(admissionv1.Warn)):
		call.Effect = Warns
	case len(failed) > 0:
		call.Effect = Audits
	case unknown > 0:
		call.Effect = UnknownEffect
	default:
		call.Effect = Admits
	}
	if s.paramKind != nil {
		// The validations run once per param found, and with none
		// parameterNotFoundAction decides: what they give is unknown.
		call.Effect = UnknownEffect
		return
	}
	if call.Decision != Applies {
		// matchConditions are unknown: so is whatever the validations do.
		if call.Effect != Admits {
			call.Effect = UnknownEffect
		}
		return
	}
	if slices.Contains(actions, string(admissionv1.Warn)) {
		for _, msg := range failed {
			call.Warnings = append(call.Warnings, fmt.Sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': %s", call.Policy, call.Binding, msg))
		}
	}
	if len(failed) > 0 && unknown > 0 && call.Effect != Denies && slices.Contains(actions, string(admissionv1.Deny)) {
		call.Effect = UnknownEffect
	}
}

// validationMessage is the message the server gives a failed validation:
// its message, else "failed expression: " and the expression. A
// messageExpression is not evaluated here.
func validationMessage(v admissionv1.Validation) string {
	m := strings.TrimSpace(v.Message)
	if m == "" {
		m = "failed expression: " + strings.TrimSpace(v.Expression)
	}
	if v.MessageExpression != "" {
		m += " (unless messageExpression gives another)"
	}
	return m
}

// changedBeforeValidation warns that validations were evaluated on the
// object as given while mutating webhooks called before them may change
// it; --changes narrows that to the webhooks said to change it.
func (ch *Chain) changedBeforeValidation() string {
	evaluated := false
	for _, p := range ch.ValidatingPolicies {
		for _, v := range p.Validations {
			evaluated = evaluated || v.Result == Pass || v.Result == Fail || v.Result == Error
		}
	}
	if !evaluated || ch.Request.ObjectState != Given {
		return ""
	}
	var changers []string
	for _, call := range ch.Mutating {
		if changes, known := ch.changes(call); call.reached() && (changes || !known) {
			changers = append(changers, call.id())
		}
	}
	if len(changers) == 0 {
		return ""
	}
	return "validations are evaluated on the object as given, but " + strings.Join(changers, ", ") +
		" may change it before they run (--changes says which webhooks do)"
}
