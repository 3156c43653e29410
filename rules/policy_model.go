package rules

import (
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/webhooklint/webhooklint/diag"
)

// The admission policy kinds, served in admissionregistration.k8s.io/v1
// (ValidatingAdmissionPolicy since 1.30, MutatingAdmissionPolicy on 1.37).
const (
	ValidatingPolicy        = "ValidatingAdmissionPolicy"
	ValidatingPolicyBinding = "ValidatingAdmissionPolicyBinding"
	MutatingPolicy          = "MutatingAdmissionPolicy"
	MutatingPolicyBinding   = "MutatingAdmissionPolicyBinding"
)

// IsPolicyKind reports whether apiVersion/kind is one of the four
// admission policy kinds in the version webhooklint lints (v1).
func IsPolicyKind(apiVersion, kind string) bool {
	if apiVersion != V1 {
		return false
	}
	switch kind {
	case ValidatingPolicy, ValidatingPolicyBinding, MutatingPolicy, MutatingPolicyBinding:
		return true
	}
	return false
}

// Policy is one admission policy or policy binding, decoded strictly.
// Exactly one of the typed pointers is set.
type Policy struct {
	APIVersion, Kind string
	Meta             metav1.ObjectMeta

	Validating        *admissionv1.ValidatingAdmissionPolicy
	ValidatingBinding *admissionv1.ValidatingAdmissionPolicyBinding
	Mutating          *admissionv1.MutatingAdmissionPolicy
	MutatingBinding   *admissionv1.MutatingAdmissionPolicyBinding
}

// NewPolicy returns an empty policy object of the kind (one of the four
// policy kinds; anything else is taken as a MutatingAdmissionPolicyBinding)
// and the typed object in it, for a decoder to fill.
func NewPolicy(apiVersion, kind string) (pol *Policy, target any) {
	pol = &Policy{APIVersion: apiVersion, Kind: kind}
	switch kind {
	case ValidatingPolicy:
		pol.Validating = &admissionv1.ValidatingAdmissionPolicy{}
		target = pol.Validating
	case ValidatingPolicyBinding:
		pol.ValidatingBinding = &admissionv1.ValidatingAdmissionPolicyBinding{}
		target = pol.ValidatingBinding
	case MutatingPolicy:
		pol.Mutating = &admissionv1.MutatingAdmissionPolicy{}
		target = pol.Mutating
	default:
		pol.MutatingBinding = &admissionv1.MutatingAdmissionPolicyBinding{}
		target = pol.MutatingBinding
	}
	return pol, target
}

// IsBinding reports whether the object is one of the two binding kinds.
func (p *Policy) IsBinding() bool { return p.ValidatingBinding != nil || p.MutatingBinding != nil }

// Object identifies the policy in diagnostics.
func (p *Policy) Object() *diag.Object {
	return &diag.Object{APIVersion: p.APIVersion, Kind: p.Kind, Name: p.Meta.Name}
}

// PolicyKindOf is the policy kind a binding kind binds.
func PolicyKindOf(bindingKind string) string {
	switch bindingKind {
	case ValidatingPolicyBinding:
		return ValidatingPolicy
	case MutatingPolicyBinding:
		return MutatingPolicy
	}
	return ""
}

// BindingPolicyName is spec.policyName of a binding ("" for a policy).
func (p *Policy) BindingPolicyName() string {
	switch {
	case p.ValidatingBinding != nil:
		return p.ValidatingBinding.Spec.PolicyName
	case p.MutatingBinding != nil:
		return p.MutatingBinding.Spec.PolicyName
	}
	return ""
}

// PolicyServedFrom is the first Kubernetes minor version (major 1) whose
// API server serves the kind in admissionregistration.k8s.io/v1:
// ValidatingAdmissionPolicy went GA in 1.30, MutatingAdmissionPolicy in 1.36
// (recorded: a 1.37.2 server emulating 1.35 answers "no matches for kind").
func PolicyServedFrom(kind string) int {
	switch kind {
	case MutatingPolicy, MutatingPolicyBinding:
		return 36
	}
	return 30
}

// PolicyServed reports whether a server of version v serves the policy
// kind in admissionregistration.k8s.io/v1. One it does not is judged by
// unserved-api-version alone: the apply fails before validation.
func PolicyServed(kind string, v KubeVersion) bool { return v.AtLeast(PolicyServedFrom(kind)) }
