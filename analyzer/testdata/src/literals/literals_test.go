package literals

import (
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// Tests build wrong webhooks on purpose: never reported.
func TestRejectsIgnore(t *testing.T) {
	_ = admissionregistrationv1.ValidatingWebhook{
		Name:          "vtest.example.com",
		FailurePolicy: &ignore,
	}
}

// +kubebuilder:webhook:path=/v,mutating=false,failurePolicy=Ignore,groups="",resources=pods,verbs=create,versions=v1,name=x,admissionReviewVersions=v1
