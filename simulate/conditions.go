package simulate

import (
	"context"
	"fmt"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/webhooklint/webhooklint/internal/celcheck"
	"github.com/webhooklint/webhooklint/rules"
)

// matchErrorPrefix starts the reason of a webhook whose matchConditions
// reject the request; the validating dispatcher stops at the first one.
const matchErrorPrefix = "matchConditions fail"

// conditionEvaluator evaluates matchConditions with the API server's CEL
// runtime on what the request carries.
type conditionEvaluator struct {
	req      *Request
	compiler *celcheck.Compiler
	eval     *celcheck.Evaluator
	note     string
}

func newConditionEvaluator(req *Request, kube rules.KubeVersion) *conditionEvaluator {
	minor := kube.Minor
	ev := &conditionEvaluator{req: req}
	switch {
	case kube.Major > 1 || minor > celcheck.MaxKubeMinor:
		ev.note = fmt.Sprintf("matchConditions are evaluated with the CEL of Kubernetes 1.%d, the newest this build knows", celcheck.MaxKubeMinor)
		minor = celcheck.MaxKubeMinor
	case minor < celcheck.MinKubeMinor:
		ev.note = fmt.Sprintf("matchConditions are evaluated with the CEL of Kubernetes 1.%d, the oldest this build knows", celcheck.MinKubeMinor)
		minor = celcheck.MinKubeMinor
	}
	ev.compiler, _ = celcheck.For(minor)
	ev.eval, _ = celcheck.EvaluatorFor(minor)
	return ev
}

// missing lists what the simulation lacks to evaluate an expression that
// reads vars, for a webhook invoked as invokedAs (nil: the request's own
// version).
func (ev *conditionEvaluator) missing(vars []string, invokedAs *GroupVersionResourceKind) []string {
	req := ev.req
	var out []string
	add := func(s string) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	converted := func(state Presence, what string) {
		if state != Absent && invokedAs != nil && (invokedAs.Group != req.Group || invokedAs.Version != req.Version) {
			add(fmt.Sprintf("the %s converted to %s (the simulation does not convert objects)", what, gvrText(invokedAs.Group, invokedAs.Version, invokedAs.Resource, "")))
		}
	}
	for _, v := range vars {
		switch v {
		case "object":
			if req.ObjectState == Unknown {
				add("the object (--object)")
			}
			converted(req.ObjectState, "object")
		case "oldObject":
			if req.OldObjectState == Unknown {
				add("the old object (--old-object)")
			}
			converted(req.OldObjectState, "old object")
		case "authorizer":
			add("an authorizer (the simulation has none)")
		case "params":
			add("the policy's params (the simulation reads no param objects)")
		case "namespaceObject":
			add("the namespace object (the simulation knows only its labels)")
		case "variables":
			add("the policy's variables (the simulation does not compose them)")
		case "request.userInfo", "request":
			if !req.UserKnown {
				add("the user (--user, --group)")
			}
			if v == "request" && req.Name == "" {
				add("the object name (--name)")
			}
			if v == "request" && req.Kind == "" {
				add("the kind (--kind)")
			}
		case "request.name":
			if req.Name == "" {
				add("the object name (--name)")
			}
		case "request.kind", "request.requestKind":
			if req.Kind == "" {
				add("the kind (--kind)")
			}
		}
	}
	return out
}

// evaluate decides a webhook's matchConditions: each condition's value
// from the server's CEL runtime, or, when the simulation lacks an input
// the condition reads, from the request fields alone (rules'
// partial evaluation) or "unknown". The combined outcome follows
// matchconditions.Matcher: a false condition skips the webhook, else an
// error rejects the request under failurePolicy Fail and skips the
// webhook under Ignore.
func (ev *conditionEvaluator) evaluate(w *rules.Webhook, rreq *rules.Request, invokedAs *GroupVersionResourceKind) ([]Check, Decision, string) {
	return ev.evaluateConditions(w.MatchConditions, w.EffectiveFailurePolicy(), rreq, invokedAs, ev.webhookVariables)
}

// webhookVariables is what a webhook's expression reads, once compiled
// in the webhook environment (an expression that does not compile is an
// evaluation error, as on the server).
func (ev *conditionEvaluator) webhookVariables(expr string) []string {
	return celcheck.Variables(ev.compiler.Compile(expr))
}

// policyVariables is what an admission policy's expression reads: the
// parse also names params and variables, which the webhook environment
// the evaluation compiles in does not declare.
func (ev *conditionEvaluator) policyVariables(expr string) []string {
	vars := ev.webhookVariables(expr)
	for _, v := range celcheck.ParsedVariables(expr) {
		if !slices.Contains(vars, v) {
			vars = append(vars, v)
		}
	}
	return vars
}

// evaluateConditions is evaluate for any list of matchConditions under
// failurePolicy policy; variables says what an expression reads.
func (ev *conditionEvaluator) evaluateConditions(conds []admissionv1.MatchCondition, policy admissionv1.FailurePolicyType, rreq *rules.Request,
	invokedAs *GroupVersionResourceKind, variables func(string) []string) ([]Check, Decision, string) {
	checks := make([]Check, len(conds))
	var complete []admissionv1.MatchCondition
	completeAt := map[int]int{}
	for i, c := range conds {
		checks[i] = Check{Check: conditionName(i, c), Missing: ev.missing(variables(c.Expression), invokedAs)}
		if len(checks[i].Missing) == 0 {
			completeAt[i] = len(complete)
			complete = append(complete, c)
		}
	}
	var decision celcheck.Decision
	if len(complete) > 0 {
		decision = ev.eval.Evaluate(context.Background(), complete, policy, ev.attributes(invokedAs), nil)
	}
	var falseAt, errAt []int
	unknown := 0
	for i, c := range conds {
		ch := &checks[i]
		if j, ok := completeAt[i]; ok {
			v := decision.Values[j]
			switch {
			case v.Err != nil:
				ch.Result, ch.Detail = Error, "evaluation error: "+v.Err.Error()
				errAt = append(errAt, i)
			case v.Value:
				ch.Result, ch.Detail = Match, "true"
			default:
				ch.Result, ch.Detail = NoMatch, "false"
				falseAt = append(falseAt, i)
			}
			continue
		}
		switch rules.ConditionOutcome(c.Expression, rreq) {
		case rules.NotCalled:
			ch.Result, ch.Detail = NoMatch, "false, from the request fields alone"
			falseAt = append(falseAt, i)
		case rules.Called:
			ch.Result, ch.Detail = Match, "true, from the request fields alone"
		default:
			ch.Result, ch.Detail = UnknownMatch, "unknown: needs "+strings.Join(ch.Missing, ", ")
			unknown++
		}
	}
	name := func(i int) string {
		if conds[i].Name != "" {
			return fmt.Sprintf("matchConditions[%d] %q", i, conds[i].Name)
		}
		return fmt.Sprintf("matchConditions[%d]", i)
	}
	switch {
	case len(falseAt) > 0:
		return checks, NotCalled, name(falseAt[0]) + " is false"
	case len(errAt) > 0 && policy == admissionv1.Ignore:
		return checks, NotCalled, name(errAt[0]) + " fails to evaluate and failurePolicy is Ignore: the webhook is skipped"
	case len(errAt) > 0 && unknown > 0:
		return checks, MaybeCalled, name(errAt[0]) + " fails to evaluate under failurePolicy Fail: the request is rejected unless an unknown condition is false"
	case unknown > 0:
		return checks, MaybeCalled, "matchConditions are unknown"
	case len(errAt) > 0:
		return checks, Rejects, matchErrorPrefix + " to evaluate (" + name(errAt[0]) + ") under failurePolicy Fail: the server rejects the request"
	}
	// Everything was evaluated by the server's matcher: its verdict agrees.
	if len(complete) == len(conds) && !decision.Matches {
		return checks, NotCalled, "matchConditions do not match"
	}
	return checks, Called, ""
}

// attributes builds the admission attributes the server's matcher sees.
// Unknown objects are left null; conditions reading them are never
// evaluated.
func (ev *conditionEvaluator) attributes(invokedAs *GroupVersionResourceKind) *admission.VersionedAttributes {
	req := ev.req
	gvk := schema.GroupVersionKind{Group: req.Group, Version: req.Version, Kind: req.Kind}
	gvr := schema.GroupVersionResource{Group: req.Group, Version: req.Version, Resource: req.Resource}
	var obj, old runtime.Object
	if req.Object != nil {
		obj = req.Object
	}
	if req.OldObject != nil {
		old = req.OldObject
	}
	var dryRun []string
	if req.DryRun {
		dryRun = []string{metav1.DryRunAll}
	}
	var options runtime.Object
	meta := metav1.TypeMeta{APIVersion: "meta.k8s.io/v1"}
	switch req.Operation {
	case admissionv1.Create:
		meta.Kind = "CreateOptions"
		options = &metav1.CreateOptions{TypeMeta: meta, DryRun: dryRun}
	case admissionv1.Update:
		meta.Kind = "UpdateOptions"
		options = &metav1.UpdateOptions{TypeMeta: meta, DryRun: dryRun}
	case admissionv1.Delete:
		meta.Kind = "DeleteOptions"
		options = &metav1.DeleteOptions{TypeMeta: meta, DryRun: dryRun}
	}
	var u user.Info = &user.DefaultInfo{}
	if req.UserKnown {
		u = &user.DefaultInfo{Name: req.UserName, Groups: req.UserGroups}
	}
	attrs := admission.NewAttributesRecord(obj, old, gvk, req.Namespace, req.Name, gvr, req.Subresource,
		admission.Operation(req.Operation), options, req.DryRun, u)
	va := &admission.VersionedAttributes{Attributes: attrs, VersionedKind: gvk}
	if invokedAs != nil {
		va.VersionedKind = schema.GroupVersionKind{Group: invokedAs.Group, Version: invokedAs.Version, Kind: invokedAs.Kind}
	}
	if obj != nil {
		va.VersionedObject.Set(obj)
	}
	if old != nil {
		va.VersionedOldObject.Set(old)
	}
	return va
}
