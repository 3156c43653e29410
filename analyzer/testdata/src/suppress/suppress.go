// Package suppress silences findings with webhooklint:ignore comments, on
// markers and on literals, as in YAML.
package suppress

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// The backend of this pod webhook runs outside the cluster: nothing of
// what the marker's webhook intercepts keeps it from coming back.
// webhooklint:ignore self-deadlock,system-critical-scope -- the backend runs outside the cluster
// +kubebuilder:webhook:path=/mutate--v1-pod,mutating=true,failurePolicy=fail,sideEffects=None,groups="",resources=pods,verbs=create;update,versions=v1,name=mpod-v1.kb.io,admissionReviewVersions=v1

// A suppression of a rule that does not fire here is reported.
// want +1 `^warning: suppression of timeout-too-long matches no finding on the marker it is on; remove it \[unused-suppression\]$`
// webhooklint:ignore timeout-too-long -- reviewed
// +kubebuilder:webhook:path=/validate-v1-service,mutating=false,failurePolicy=ignore,sideEffects=None,groups="",resources=services,verbs=create,versions=v1,name=vservice-v1.kb.io,admissionReviewVersions=v1

// A suppression needs a reason, and a rule that exists.
// want +1 `^error: suppression of review-versions-order gives no reason; write .* \[invalid-suppression\]$`
// webhooklint:ignore review-versions-order
// want +1 `lists v1beta1 before v1`
// +kubebuilder:webhook:path=/validate-v1-endpoints,mutating=false,failurePolicy=ignore,sideEffects=None,groups="",resources=endpoints,verbs=create,versions=v1,name=vendpoints-v1.kb.io,admissionReviewVersions=v1beta1;v1

// want +1 `^error: suppression names unknown rule "no-such-rule" .* \[invalid-suppression\]$`
// webhooklint:ignore no-such-rule -- typo

// On a literal: at the end of a field's line, or above a statement.
func build() *admissionregistrationv1.ValidatingWebhookConfiguration {
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "hooks"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "vconfigmap.example.com",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://hooks.example.com/validate")},
			Rules:                   []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create}, Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
			FailurePolicy:           ptr.To(admissionregistrationv1.Ignore),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			TimeoutSeconds:          ptr.To[int32](45),         // webhooklint:ignore timeout-range -- the test cluster's server accepts it
			AdmissionReviewVersions: []string{"v1beta1", "v1"}, // want `lists v1beta1 before v1`
		}},
	}
}

func buildAll() *admissionregistrationv1.MutatingWebhookConfiguration {
	// webhooklint:ignore review-versions-order,timeout-range -- kept for old API servers
	return &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "hooks"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    "mconfigmap.example.com",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://hooks.example.com/mutate")},
			Rules:                   []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create}, Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
			FailurePolicy:           ptr.To(admissionregistrationv1.Ignore),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			TimeoutSeconds:          ptr.To[int32](45),
			AdmissionReviewVersions: []string{"v1beta1", "v1"},
		}},
	}
}
