// Package policies builds admission policies and bindings as Go literals.
package policies

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	admissionregistrationv1beta1 "k8s.io/api/admissionregistration/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

var deployments = admissionregistrationv1.MatchResources{
	ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
		RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
			Rule: admissionregistrationv1.Rule{
				APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"},
			},
		},
	}},
}

// ReplicaLimit is a policy whose expression does not compile.
func ReplicaLimit() *admissionregistrationv1.ValidatingAdmissionPolicy {
	return &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "replica-limit"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
						Rule: admissionregistrationv1.Rule{
							APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"},
						},
					},
				}},
			},
			Validations: []admissionregistrationv1.Validation{{
				Expression: "object.spec.replicas <= params.max", // want `spec\.validations\[0\]\.expression: Invalid value: .*undeclared reference to 'params'.* \[admission-policy\]$`
			}},
		},
	}
}

// WrongCase writes failurePolicy in the wrong case.
func WrongCase() *admissionregistrationv1.ValidatingAdmissionPolicy {
	return &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "wrong-case"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.FailurePolicyType("fail")), // want `spec\.failurePolicy: Unsupported value: "fail"`
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
						Rule: admissionregistrationv1.Rule{
							APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"},
						},
					},
				}},
			},
			Validations: []admissionregistrationv1.Validation{{Expression: "object.spec.replicas <= 5"}},
		},
	}
}

// NoConstraints lacks the required matchConstraints: reported on the
// literal that would hold them.
func NoConstraints() *admissionregistrationv1.ValidatingAdmissionPolicy {
	return &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "no-constraints"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{ // want `spec\.matchConstraints: Required value`
			Validations: []admissionregistrationv1.Validation{{Expression: "object.spec.replicas <= 5"}},
		},
	}
}

// DenyAndWarn is a binding the API server rejects.
func DenyAndWarn() *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "replica-limit"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        "replica-limit",
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny, admissionregistrationv1.Warn}, // want `spec\.validationActions: Invalid value: \["Deny","Warn"\]: must not contain both Deny and Warn`
		},
	}
}

// MutateOnDelete is a mutating policy on DELETE, which the server rejects.
func MutateOnDelete() *admissionregistrationv1.MutatingAdmissionPolicy {
	return &admissionregistrationv1.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "mutate-on-delete"},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{ // want `spec\.matchConstraints\.resourceRules\.operations: Unsupported value: "DELETE"`
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Delete},
						Rule: admissionregistrationv1.Rule{
							APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"},
						},
					},
				}},
			},
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
			Mutations: []admissionregistrationv1.Mutation{{
				PatchType: admissionregistrationv1.PatchTypeApplyConfiguration,
				ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{
					Expression: `Object{metadata: Object.metadata{labels: {"mutated": "true"}}}`,
				},
			}},
		},
	}
}

// NoParams is a mutating binding whose paramRef names nothing.
func NoParams() *admissionregistrationv1.MutatingAdmissionPolicyBinding {
	return &admissionregistrationv1.MutatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "no-params"},
		Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{
			PolicyName: "labels",
			ParamRef: &admissionregistrationv1.ParamRef{ // want `spec\.paramRef`
				ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction),
			},
		},
	}
}

// Clean is a policy and binding the API server accepts.
func Clean() (*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	return &admissionregistrationv1.ValidatingAdmissionPolicy{
			ObjectMeta: metav1.ObjectMeta{Name: "clean"},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				ParamKind:        &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"},
				MatchConstraints: &deployments,
				Validations:      []admissionregistrationv1.Validation{{Expression: "object.spec.replicas <= int(params.data.max)"}},
			},
		}, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "clean"},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
				PolicyName:        "clean",
				ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
				ParamRef:          &admissionregistrationv1.ParamRef{Name: "limits", ParameterNotFoundAction: ptr.To(admissionregistrationv1.AllowAction)},
			},
		}
}

// FromConfig takes its paramKind from the caller: without it, params is
// undeclared, and judging the expression would report what is not wrong.
func FromConfig(kind *admissionregistrationv1.ParamKind) *admissionregistrationv1.ValidatingAdmissionPolicy {
	return &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "from-config"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			ParamKind:        kind,
			MatchConstraints: &deployments,
			Validations:      []admissionregistrationv1.Validation{{Expression: "object.spec.replicas <= int(params.data.max)"}},
		},
	}
}

// ChangedLater sets its validations after the literal is built.
func ChangedLater(expr string) *admissionregistrationv1.ValidatingAdmissionPolicy {
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "changed-later"},
		Spec:       admissionregistrationv1.ValidatingAdmissionPolicySpec{MatchConstraints: &deployments},
	}
	p.Spec.Validations = []admissionregistrationv1.Validation{{Expression: expr}}
	return p
}

// Lookup only names objects: a Get target and a v1beta1 literal are not judged.
func Lookup() (any, any) {
	return &admissionregistrationv1.ValidatingAdmissionPolicy{},
		&admissionregistrationv1beta1.ValidatingAdmissionPolicy{
			Spec: admissionregistrationv1beta1.ValidatingAdmissionPolicySpec{
				Validations: []admissionregistrationv1beta1.Validation{{Expression: "object.spec.replicas <="}},
			},
		}
}

// NamedLater names its params at run time: the missing name is not a
// finding.
func NamedLater(name string) *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "named-later"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        "clean",
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			ParamRef:          &admissionregistrationv1.ParamRef{ParameterNotFoundAction: ptr.To(admissionregistrationv1.DenyAction)},
		},
	}
	b.Spec.ParamRef.Name = name
	return b
}

// LabeledLater sets only metadata at run time: its spec is still judged.
func LabeledLater(labels map[string]string) *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "labeled-later"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        "clean",
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Audit, admissionregistrationv1.Audit}, // want `spec\.validationActions\[1\]: Duplicate value: "Audit"`
		},
	}
	b.Labels = labels
	return b
}
