// Package oldpolicies builds a mutating policy for a cluster that does not
// serve it (the test runs with -kube-version 1.35).
package oldpolicies

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Binding binds a policy that does not exist.
func Binding() *admissionregistrationv1.MutatingAdmissionPolicyBinding {
	return &admissionregistrationv1.MutatingAdmissionPolicyBinding{ // want `^error: Kubernetes 1\.35 does not serve MutatingAdmissionPolicyBinding in admissionregistration\.k8s\.io/v1;.*\[unserved-api-version\]$`
		ObjectMeta: metav1.ObjectMeta{Name: "Bad_Name"},
		Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: "labels"},
	}
}

// Validating is served from 1.30: judged.
func Validating() *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "Bad_Name"}, // want `metadata\.name: Invalid value: "Bad_Name"`
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        "labels",
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
}
